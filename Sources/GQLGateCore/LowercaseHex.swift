extension Sequence<UInt8> {
    /// The bytes in lower-case hex, two digits each.
    package var lowercaseHex: String {
        // Bytes held in one piece (an array, a buffer) are written straight into the string.
        withContiguousStorageIfAvailable(Self.lowercaseHex) ?? Array(self).withUnsafeBufferPointer(Self.lowercaseHex)
    }

    private static func lowercaseHex(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = hexDigit(byte >> 4)
                text[2 * index + 1] = hexDigit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x57 + nibble
    }
}
