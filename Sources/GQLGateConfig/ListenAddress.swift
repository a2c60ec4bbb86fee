#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The address gqlgate listens on: `127.0.0.1:8080`, `[::1]:8080`, `localhost:9000`.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host name or IP address, without brackets (`::1`, not `[::1]`).
    public var host: String
    /// The TCP port; 0 lets the system choose one.
    public var port: UInt16

    private static let expected =
        "HOST:PORT such as 127.0.0.1:8080, [::1]:8080 or localhost:8080, with a port from 0 to 65535"

    /// Creates an address from its parts.
    /// - Parameters:
    ///   - host: The host name or IP address, without brackets.
    ///   - port: The TCP port.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`, with IPv6 addresses in brackets (`[::1]:8080`).
    /// - Parameter text: The address as written in the config file or a flag.
    /// - Throws: A ``ConfigError`` without key path that quotes `text` and says what is allowed.
    public init(parsing text: String) throws(ConfigError) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[close...].hasPrefix("]:") else {
                throw .invalid(text, expected: Self.expected)
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
            guard Self.isIPv6(host) else { throw .invalid(text, expected: "an IPv6 address in the brackets, such as [::1]:8080") }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw .invalid(text, expected: Self.expected) }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard !host.contains(":") else { throw .invalid(text, expected: "an IPv6 address in brackets, such as [::1]:8080") }
            guard !host.isEmpty, host.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == "-" || $0 == "." }) else {
                throw .invalid(text, expected: Self.expected)
            }
        }
        guard port.allSatisfy(\.isASCIIDigit), let number = UInt16(port) else { throw .invalid(text, expected: Self.expected) }
        self.init(host: String(host), port: number)
    }

    /// `host:port`, with brackets around IPv6 addresses.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// True when only this machine can connect: `localhost`, `127.0.0.0/8` and `::1` (also as
    /// `::ffff:127.x.y.z`).
    public var isLoopback: Bool {
        if host.lowercased() == "localhost" { return true }
        if let bytes = Self.address(host, family: AF_INET, size: 4) { return bytes[0] == 127 }
        guard let bytes = Self.address(host, family: AF_INET6, size: 16) else { return false }
        let isIPv6Loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        let isMappedIPv4Loopback = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        return isIPv6Loopback || isMappedIPv4Loopback
    }

    /// True when `host` is an IPv6 address.
    private static func isIPv6(_ host: Substring) -> Bool {
        address(String(host), family: AF_INET6, size: 16) != nil
    }

    /// The bytes of the numeric address `host` in `family`, or nil when it is not one.
    private static func address(_ host: String, family: Int32, size: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: size)
        let result = bytes.withUnsafeMutableBytes { inet_pton(family, host, $0.baseAddress) }
        return result == 1 ? bytes : nil
    }
}
