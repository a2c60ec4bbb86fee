import GQLGatePipeline

/// A client key's id for spans: the first 16 hex digits of the key's
/// SHA-256. It names a key without giving it away, and an operator finds it
/// from the key (`printf %s "$KEY" | sha256sum | cut -c1-16`).
package enum ClientKeyID {
    /// The id of `key`.
    package static func of(_ key: String) -> String {
        String(DocumentCache.digest(of: key).hexString.prefix(16))
    }
}
