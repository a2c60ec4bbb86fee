/// URLs made fit for logs.
package enum URLRedaction {
    /// `url` with any `user:password@` in its authority replaced by `***@`.
    package static func redactingUserInfo(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd.upperBound]) + "***" + String(url[at...])
    }
}
