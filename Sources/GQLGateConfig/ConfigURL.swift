import Foundation

/// Checks the URLs of the config file.
package enum ConfigURL {
    /// `text` when it is an absolute URL with a host and one of `schemes`.
    /// - Parameters:
    ///   - text: The URL as written.
    ///   - schemes: The allowed schemes, lowercase (`["http", "https"]`).
    /// - Throws: A ``ConfigError`` without key path that quotes `text` and names the allowed schemes.
    static func check(_ text: String, schemes: [String]) throws(ConfigError) -> String {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), schemes.contains(scheme),
              let host = components.host, !host.isEmpty
        else {
            let names = schemes.map { "\($0)://" }
            let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
            throw .invalid(text, expected: "a \(list) URL with a host")
        }
        return text
    }
}

extension YAMLValue {
    /// A URL with a host and one of `schemes` (see ``ConfigURL``).
    func url(schemes: [String]) throws(ConfigError) -> String {
        let text = try text(expected: "a URL")
        do {
            return try ConfigURL.check(text, schemes: schemes)
        } catch {
            throw error.at(path, rejecting: text)
        }
    }
}

extension ConfigURL {
    /// Where `url` points, for telemetry: the URL without its user info, its host and its port
    /// (the scheme's default when none is written); nil when it is no URL with a host.
    package static func endpoint(of url: String) -> (url: String, host: String, port: Int)? {
        guard var components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return nil }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        components.user = nil
        components.password = nil
        return (components.string ?? url, host, port)
    }
}
