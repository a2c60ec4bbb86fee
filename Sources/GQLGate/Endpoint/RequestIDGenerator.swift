import Synchronization

/// Makes request ids that look random and never repeat within a process:
/// a random 64-bit prefix and a counter mixed through splitmix64, printed as
/// 32 hex digits. Costs no system call per request.
final class RequestIDGenerator: Sendable {
    private let prefix: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        prefix = generator.next()
    }

    func next() -> String {
        let n = counter.add(1, ordering: .relaxed).oldValue
        let first = Self.mix(prefix &+ n)
        let second = Self.mix(first ^ 0xD1B5_4A32_D192_ED03)
        return String(unsafeUninitializedCapacity: 32) { buffer in
            Self.writeHex(first, into: buffer, at: 0)
            Self.writeHex(second, into: buffer, at: 16)
            return 32
        }
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for i in 0..<16 {
            let nibble = UInt8((value >> UInt64(60 - 4 * i)) & 0xF)
            buffer[offset + i] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
        }
    }
}
