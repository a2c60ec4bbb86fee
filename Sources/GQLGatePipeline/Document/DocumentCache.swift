@_spi(GQLGateInternals) package import GQLGateCore
import GraphQL
#if canImport(Glibc)
import Glibc
#endif

/// Parses and analyses each distinct query text once: an LRU of
/// `AnalysedDocument`s keyed by the text itself (its bytes), shared by all
/// loops. A repeated query costs one look-up, not a SHA-256 of its text
/// (about 3.5k instructions for a short query, and ten times the text's
/// length in cycles for a long one); the SHA-256 is taken on a miss only.
package final class DocumentCache: Sendable {
    private typealias Entries = CostBoundedLRU<QueryText, AnalysedDocument>

    private let entries: Lock<Entries>
    private let parses = Lock<Int>(0)

    /// - Parameter capacity: distinct documents kept.
    package init(capacity: Int = 2048) {
        entries = Lock(Entries(capacity: capacity))
    }

    /// The analysed document for `query`, parsing it only on a miss.
    /// Syntax errors throw `GRAPHQL_PARSE_FAILED` located in `query`, nesting past
    /// `DocumentNesting.limit` `QUERY_TOO_COMPLEX` (before parsing); neither is cached.
    package func analyse(_ query: String) throws(GatewayError) -> AnalysedDocument {
        if let hit = entries.withLock({ $0.value(for: QueryText(query)) }) { return hit }
        try DocumentNesting.check(query)
        let digest = Self.digest(of: query)
        let document: Document
        let input = ParserInput(query)
        do {
            document = try parse(source: input.text, noLocation: true)
        } catch let error as GraphQLError {
            throw .parseFailed(ClientSyntaxError(error, input: input))
        } catch {
            throw .parseFailed("\(error)")
        }
        parses.withLock { $0 += 1 }
        let analysed = try AnalysedDocument(document: document, query: query, sha256: digest.hexString)
        entries.withLock { _ = $0.insert(analysed, for: QueryText(query), cost: 1) }
        return analysed
    }

    /// The analysed document for `query` when it is held already; never parses.
    package func cachedDocument(for query: String) -> AnalysedDocument? {
        entries.withLock { $0.value(for: QueryText(query)) }
    }

    /// Documents held.
    package var count: Int { entries.withLock { $0.count } }

    /// Documents parsed so far (misses).
    var parseCount: Int { parses.withLock { $0 } }

    /// SHA-256 of the UTF-8 bytes of `query`.
    package static func digest(of query: String) -> SHA256.Digest {
        var text = query
        return text.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
    }
}

/// A SHA-256 digest as four words: a cheap, `Sendable` dictionary key.
struct DigestKey: Hashable, Sendable {
    let words: (UInt64, UInt64, UInt64, UInt64)

    init(_ digest: SHA256.Digest) {
        words = digest.withUnsafeBytes { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
    }

    static func == (lhs: DigestKey, rhs: DigestKey) -> Bool {
        lhs.words == rhs.words
    }

    /// One word of the digest: SHA-256 spreads its bits evenly, so the other
    /// three would only cost hashing (keys that share it are told apart by `==`).
    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
    }
}

/// A query text compared and hashed as its UTF-8 bytes. `String`'s own
/// equality is Unicode canonical equivalence: two texts that differ in bytes
/// (and so in SHA-256, and in what the upstream is sent) could compare equal.
struct QueryText: Hashable, Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: QueryText, rhs: QueryText) -> Bool {
        var a = lhs.text, b = rhs.text
        // memcmp: a byte loop costs about 20 instructions a byte, and queries are long.
        return a.withUTF8 { x in
            b.withUTF8 { y in
                x.count == y.count && (x.isEmpty || x.baseAddress == y.baseAddress || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
