import Foundation

/// `application/x-www-form-urlencoded` values, as token requests need them
/// (Foundation's percent encoder; this is not a hot path).
enum FormEncoding {
    /// RFC 6749 Appendix B: everything but unreserved characters percent-encoded.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}
