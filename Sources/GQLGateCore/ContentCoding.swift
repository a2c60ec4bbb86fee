/// A content coding gqlgate compresses answers with (RFC 9110 §8.4.1).
public enum ContentCoding: String, Sendable, CaseIterable {
    /// Brotli (RFC 7932).
    case br
    /// gzip (RFC 1952).
    case gzip
}
