internal import CNettle

/// SHA-256 (nettle's, the library GnuTLS hashes with): of bytes at once
/// (`hash(data:)`), or fed in parts (`update`, then `finalize`).
package struct SHA256: Sendable {
    /// A SHA-256 digest: 32 bytes.
    package struct Digest: Hashable, Sendable, Sequence {
        private let bytes: [UInt8]

        fileprivate init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        package func makeIterator() -> IndexingIterator<[UInt8]> {
            bytes.makeIterator()
        }

        /// Calls `body` with the digest's 32 bytes.
        package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try bytes.withUnsafeBytes(body)
        }

        /// Lower-case hex, 64 digits (as APQ's `sha256Hash`).
        package var hexString: String {
            bytes.lowercaseHex
        }
    }

    private var context = sha256_ctx()

    /// A hash of nothing yet.
    package init() {
        nettle_sha256_init(&context)
    }

    /// Feeds `bytes` in.
    package mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        nettle_sha256_update(&context, bytes.count, base.assumingMemoryBound(to: UInt8.self))
    }

    /// Feeds `bytes` in.
    package mutating func update(data bytes: [UInt8]) {
        bytes.withUnsafeBytes { update(bufferPointer: $0) }
    }

    /// The digest of everything fed in.
    package consuming func finalize() -> Digest {
        Digest([UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
            nettle_sha256_digest(&context, 32, buffer.baseAddress)
            count = 32
        })
    }

    /// The digest of `bytes`.
    package static func hash(data bytes: UnsafeRawBufferPointer) -> Digest {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return hasher.finalize()
    }

    /// The digest of `bytes`.
    package static func hash(data bytes: [UInt8]) -> Digest {
        bytes.withUnsafeBytes { hash(data: $0) }
    }
}
