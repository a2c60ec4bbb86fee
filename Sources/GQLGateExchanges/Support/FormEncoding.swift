import Foundation

/// `application/x-www-form-urlencoded` values and Base64, as token requests
/// need them (Foundation's encoders; this is not a hot path).
enum FormEncoding {
    /// RFC 6749 Appendix B: everything but unreserved characters percent-encoded.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}

enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
