import Crypto
import GQLGatePipeline
import Synchronization

/// SHA-256 digests of `RequestKey`s' parts, remembered by the parts' exact
/// bytes: a pure function's results, so a remembered digest is always the
/// one the hash would give. Bounded by `maxBytes` of parts, least recently
/// used dropped first (`CostBoundedLRU`).
final class RequestKeyDigests: Sendable {
    typealias Words = (UInt64, UInt64, UInt64, UInt64)

    /// Parts as bytes, hashed in one piece (an array's own hashing takes them one by one).
    private struct Parts: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private struct Digest {
        let words: Words
    }

    /// Up to 1 MiB of parts.
    static let maxBytes = 1 << 20

    private let digests = Mutex(CostBoundedLRU<Parts, Digest>(capacity: maxBytes))

    /// The SHA-256 of `parts`, as four words.
    func digest(of parts: [UInt8]) -> Words {
        let key = Parts(bytes: parts)
        if let known = digests.withLock({ $0.value(for: key) }) { return known.words }
        var hasher = SHA256()
        parts.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        let words = hasher.finalize().withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
        digests.withLock { _ = $0.insert(Digest(words: words), for: key, cost: parts.count + 64) }
        return words
    }
}
