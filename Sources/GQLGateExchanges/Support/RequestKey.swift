import Crypto
import GQLGateCore
import GQLGatePipeline

/// What makes two queries the same for the response cache and dedupe: the
/// normalised document (its canonical digest), the operation name, the variables in canonical form
/// (object keys sorted) and the scope (the values of the vary headers). Held
/// as the SHA-256 of those parts, each followed by a NUL, hashed in one
/// pass — so entries of different scopes never meet and a key costs 32 bytes
/// however large the variables are.
public struct RequestKey: Hashable, Sendable, CustomStringConvertible {
    private let word0: UInt64
    private let word1: UInt64
    private let word2: UInt64
    private let word3: UInt64
    /// Whether the request carried none of the vary headers.
    public let hasEmptyScope: Bool

    /// The key of `operation` (after `DocumentExchange`; without an analysed
    /// document the query text stands in for the normalised one).
    /// - Parameter varyHeaders: the header names that scope the cache (`cache.vary_headers`).
    public init(operation: borrowing Operation, varyHeaders: [String]) {
        let name = operation.request.operationName ?? ""
        var variables = operation.request.variables?.serialized(sortedKeys: true) ?? ""
        if variables == "{}" { variables = "" }
        var parts: [UInt8] = []
        parts.reserveCapacity(name.utf8.count + variables.utf8.count + 128)
        // The document's canonical digest, 32 bytes after a tag byte (a short
        // key fits one SHA-256 block); without a document, its text and a NUL.
        if let document = operation.document {
            parts.append(1)
            parts.append(contentsOf: document.canonicalDigest)
        } else {
            parts.append(2)
            Self.append(operation.request.query ?? "", to: &parts)
        }
        Self.append(name, to: &parts)
        Self.append(variables, to: &parts)
        var scoped = false
        for name in varyHeaders {
            for field in operation.headers where field.name.equalsIgnoringASCIICase(name) {
                Self.append(name.lowercased(), to: &parts)
                Self.append(field.value, to: &parts)
                scoped = true
            }
        }
        hasEmptyScope = !scoped
        (word0, word1, word2, word3) = Self.digests.digest(of: parts)
    }

    /// The SHA-256 of parts seen before: a repeated query (what cache hits
    /// and dedupe mostly are) skips the hash, whose wrapper alone costs
    /// several times the rest of a cache hit's key.
    private static let digests = RequestKeyDigests()

    /// The scope as text: each vary header present, as `name:value[,value]`
    /// lines in the configured order; empty when none is present.
    public static func scope(of headers: HTTPHeaders, varyHeaders: [String]) -> String {
        var scope = ""
        for name in varyHeaders {
            let values = headers.values(for: name)
            guard !values.isEmpty else { continue }
            scope += name.lowercased() + ":" + values.joined(separator: ",") + "\n"
        }
        return scope
    }

    /// One part and a NUL after it (parts are text, so NUL cannot occur inside one).
    private static func append(_ part: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: part.utf8)
        bytes.append(0)
    }

    /// The words are a SHA-256 digest, already spread evenly: one of them
    /// places the key in a hash table as well as all four, for a quarter of
    /// the hashing (dedupe and the cache look keys up several times a request).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(word0)
    }

    /// Bytes the key takes in memory (for the cache's byte accounting).
    public static let byteCount = 32

    /// The digest in hex.
    public var description: String {
        [word0, word1, word2, word3].map { word in
            withUnsafeBytes(of: word) { bytes in
                bytes.map { byte in String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16) }.joined()
            }
        }.joined()
    }
}
