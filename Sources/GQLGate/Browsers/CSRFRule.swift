import GQLGateConfig
import GQLGateCore

/// Apollo Router's CSRF rule (`csrf`): a request a browser could send
/// cross-site without a preflight — no `Content-Type`, or `text/plain`,
/// `multipart/form-data` or `application/x-www-form-urlencoded` — runs only
/// with one of the required headers, which a cross-site page cannot add
/// without a preflight. Checked by the endpoint before the pipeline, so
/// cache hits are covered too; a few byte comparisons on fields already read.
struct CSRFRule: Sendable {
    /// Any of these lets a simple request through (lower case).
    let requiredHeaders: [String]

    /// The rule `config` asks for; nil when `csrf.enabled` is false.
    init?(_ config: CSRFConfig) {
        guard config.enabled else { return nil }
        requiredHeaders = config.requiredHeaders
    }

    /// Whether a request with `headers` may run.
    func allows(_ headers: HTTPHeaders) -> Bool {
        if let contentType = headers["content-type"], !Self.isSimple(contentType: contentType) { return true }
        return requiredHeaders.contains { headers.contains($0) }
    }

    /// Whether `contentType`'s media type (parameters and surrounding
    /// spaces left out, case ignored) is one a browser sends cross-site
    /// without a preflight. Any other value — even one that does not parse —
    /// makes a browser ask first. One pass over the field's bytes.
    static func isSimple(contentType: String) -> Bool {
        var contentType = contentType
        return contentType.withUTF8 { bytes in
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            let essence = UnsafeBufferPointer(rebasing: bytes[start..<end])
            return simpleTypes.contains { type in
                type.count == essence.count && zip(type, essence).allSatisfy { $0 == lowered($1) }
            }
        }
    }

    /// The media types a browser sends cross-site without a preflight, lower case.
    private static let simpleTypes: [[UInt8]] =
        ["text/plain", "multipart/form-data", "application/x-www-form-urlencoded"].map { Array($0.utf8) }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
