import Crypto
import GQLGateCore
import GQLGatePipeline

/// What makes two queries the same for the response cache and dedupe: the
/// normalised document, the operation name, the variables in canonical form
/// (object keys sorted) and the scope (the values of the vary headers). Held
/// as the SHA-256 of those parts — fed to the hash one after the other, with
/// separators, never joined into one string — so entries of different scopes
/// never meet and a key costs 32 bytes however large the variables are.
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
    public init(operation: Operation, varyHeaders: [String]) {
        var hasher = SHA256()
        Self.feed(operation.document?.normalisedDigest ?? operation.request.query ?? "", to: &hasher)
        Self.feed(operation.request.operationName ?? "", to: &hasher)
        let variables = operation.request.variables?.serialized(sortedKeys: true) ?? ""
        Self.feed(variables == "{}" ? "" : variables, to: &hasher)
        var scoped = false
        for name in varyHeaders {
            for field in operation.headers where field.name.equalsIgnoringASCIICase(name) {
                Self.feed(name.lowercased(), to: &hasher)
                Self.feed(field.value, to: &hasher)
                scoped = true
            }
        }
        hasEmptyScope = !scoped
        (word0, word1, word2, word3) = hasher.finalize().withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
    }

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

    /// One part and a NUL after it (parts are text, so NUL cannot occur inside
    /// one), in one update: `withCString` hands over the UTF-8 bytes followed by
    /// their terminating NUL, which a native string already stores.
    private static func feed(_ part: String, to hasher: inout SHA256) {
        let count = part.utf8.count + 1
        part.withCString { hasher.update(bufferPointer: UnsafeRawBufferPointer(start: $0, count: count)) }
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
