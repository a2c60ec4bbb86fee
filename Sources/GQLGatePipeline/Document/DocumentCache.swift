import Crypto
import GraphQL
import Synchronization

/// Parses and analyses each distinct query text once: an LRU of
/// `AnalysedDocument`s keyed by the SHA-256 of the text, shared by all loops.
public final class DocumentCache: Sendable {
    private let entries: Mutex<CostBoundedLRU<DigestKey, AnalysedDocument>>
    private let parses = Mutex<Int>(0)

    /// - Parameter capacity: distinct documents kept.
    public init(capacity: Int = 2048) {
        entries = Mutex(CostBoundedLRU(capacity: capacity))
    }

    /// The analysed document for `query`, parsing it only on a miss.
    /// Syntax errors throw `GRAPHQL_PARSE_FAILED` and are not cached.
    public func analyse(_ query: String) throws(GatewayError) -> AnalysedDocument {
        let digest = Self.digest(of: query)
        let key = DigestKey(digest)
        if let hit = entries.withLock({ $0.value(for: key) }) { return hit }
        let document: Document
        do {
            document = try parse(source: query, noLocation: true)
        } catch let error as GraphQLError {
            throw .parseFailed(error.message)
        } catch {
            throw .parseFailed("\(error)")
        }
        parses.withLock { $0 += 1 }
        let analysed = try AnalysedDocument(document: document, query: query, sha256: digest.hexString)
        entries.withLock { _ = $0.insert(analysed, for: key, cost: 1) }
        return analysed
    }

    /// The analysed document for `query` when it is held already; never parses.
    public func cachedDocument(for query: String) -> AnalysedDocument? {
        let key = DigestKey(Self.digest(of: query))
        return entries.withLock { $0.value(for: key) }
    }

    /// Documents held.
    public var count: Int { entries.withLock { $0.count } }

    /// Documents parsed so far (misses), for tests and metrics.
    public var parseCount: Int { parses.withLock { $0 } }

    /// SHA-256 of the UTF-8 bytes of `query`.
    public static func digest(of query: String) -> SHA256.Digest {
        var text = query
        return text.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
    }
}

extension SHA256.Digest {
    /// Lower-case hex, as APQ's `sha256Hash`.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
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

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
