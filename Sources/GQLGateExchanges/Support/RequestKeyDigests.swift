import Crypto
import Synchronization

/// SHA-256 digests of `RequestKey`s' parts, remembered by the parts' exact
/// bytes: a pure function's results, so a remembered digest is always the
/// one the hash would give. Bounded by `maxBytes` of parts: when full it is
/// emptied and fills again with the parts still asked for (cheaper than
/// keeping recency on every look-up).
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

    private struct Table {
        var digests: [Parts: Digest] = [:]
        var bytes = 0
    }

    /// Up to 1 MiB of parts.
    static let maxBytes = 1 << 20

    private let table = Mutex(Table())

    /// The SHA-256 of `parts`, as four words.
    func digest(of parts: [UInt8]) -> Words {
        let key = Parts(bytes: parts)
        if let known = table.withLock({ $0.digests[key] }) { return known.words }
        var hasher = SHA256()
        parts.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        let words = hasher.finalize().withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
        let cost = parts.count + 64
        guard cost <= Self.maxBytes else { return words }
        table.withLock { table in
            if table.bytes + cost > Self.maxBytes {
                table.digests.removeAll()
                table.bytes = 0
            }
            if table.digests.updateValue(Digest(words: words), forKey: key) == nil { table.bytes += cost }
        }
        return words
    }
}
