package import GQLGateCore
package import GQLGatePipeline

/// What makes two queries the same for the response cache and dedupe: the
/// normalised document (its canonical digest), the operation name, the
/// variables in canonical form (object keys sorted), the scope (the values
/// of the vary headers), so entries of different scopes never meet, and the
/// values of every other client field the upstream is sent (`KeyHeaders`,
/// and `Accept` when the client's goes upstream: `Operation.forwardedAccept`),
/// so requests the upstream may answer differently never share an answer. Held as
/// those parts' bytes, each followed by a NUL, with their hash taken once: a
/// key is compared by its exact bytes, and hashed by one word. Its SHA-256,
/// which names it in Redis (`description`), is computed only when asked for.
package struct RequestKey: Hashable, Sendable, CustomStringConvertible {
    private let parts: [UInt8]
    private let hash: Int
    /// Whether the request carried none of the vary headers.
    package let hasEmptyScope: Bool

    /// The key of `operation` (after `DocumentExchange`; without an analysed
    /// document the query text stands in for the normalised one).
    /// - Parameter headers: the client fields that are part of the key.
    package init(operation: borrowing Operation, headers: KeyHeaders) {
        let name = operation.request.operationName ?? ""
        var variables = operation.request.variables?.serialized(sortedKeys: true) ?? ""
        if variables == "{}" { variables = "" }
        var parts: [UInt8] = []
        parts.reserveCapacity(name.utf8.count + variables.utf8.count + 128)
        // The document's canonical digest, 32 bytes after a tag byte; without a document, its text and a NUL.
        if let document = operation.document {
            parts.append(1)
            parts.append(contentsOf: document.canonicalDigest)
        } else {
            parts.append(2)
            Self.append(operation.request.query ?? "", to: &parts)
        }
        Self.append(name, to: &parts)
        Self.append(variables, to: &parts)
        hasEmptyScope = !Self.append(headers.scope, of: operation.headers, to: &parts)
        Self.append(headers.forwarded, of: operation.headers, to: &parts)
        // Otherwise the upstream is sent the gateway's Accept, and its answer is given each client in its media type.
        if let accept = operation.forwardedAccept {
            Self.append("accept", to: &parts)
            Self.append(accept, to: &parts)
        }
        var hasher = Hasher()
        parts.withUnsafeBytes { hasher.combine(bytes: $0) }
        hash = hasher.finalize()
        self.parts = parts
    }

    package static func == (lhs: RequestKey, rhs: RequestKey) -> Bool {
        lhs.hash == rhs.hash && lhs.parts == rhs.parts
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    /// Bytes the key takes in memory (for the cache's byte accounting).
    package var byteCount: Int { parts.count + 48 }

    /// The scope as text: each vary header present, as `name:value[,value]`
    /// lines in the configured order; empty when none is present.
    package static func scope(of headers: HTTPHeaders, varyHeaders: [String]) -> String {
        var scope = ""
        for name in varyHeaders {
            let values = headers.values(for: name)
            guard !values.isEmpty else { continue }
            scope += name.lowercased() + ":" + values.joined(separator: ",") + "\n"
        }
        return scope
    }

    /// For each of `names`, each field of that name in `fields`: the name and
    /// the value as parts. Whether any field was found.
    @discardableResult
    private static func append(_ names: [String], of fields: HTTPHeaders, to bytes: inout [UInt8]) -> Bool {
        var found = false
        for name in names {
            fields.forEachValue(of: name) { value in
                append(name, to: &bytes)
                append(value, to: &bytes)
                found = true
            }
        }
        return found
    }

    /// One part and a NUL after it (parts are text, so NUL cannot occur inside one).
    private static func append(_ part: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: part.utf8)
        bytes.append(0)
    }

    /// The SHA-256 of the parts, in hex.
    package var description: String {
        var hasher = SHA256()
        parts.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize().hexString
    }
}
