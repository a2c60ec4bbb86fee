internal import CNettle

/// SHA-1 (nettle's), for what a protocol still asks it for: the WebSocket
/// handshake's `Sec-WebSocket-Accept`. Not for anything that must resist collisions.
package enum SHA1 {
    /// The 20-byte digest of `bytes`.
    package static func hash(data bytes: [UInt8]) -> [UInt8] {
        var context = sha1_ctx()
        nettle_sha1_init(&context)
        bytes.withUnsafeBufferPointer { nettle_sha1_update(&context, $0.count, $0.baseAddress) }
        return [UInt8](unsafeUninitializedCapacity: 20) { buffer, count in
            nettle_sha1_digest(&context, 20, buffer.baseAddress)
            count = 20
        }
    }
}
