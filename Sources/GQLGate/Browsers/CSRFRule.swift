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
            let essence = bytes.trimmingASCIISpaces(0..<(bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count))
            return bytes.equalsIgnoringASCIICase(essence, "text/plain") || bytes.equalsIgnoringASCIICase(essence, "multipart/form-data")
                || bytes.equalsIgnoringASCIICase(essence, "application/x-www-form-urlencoded")
        }
    }
}
