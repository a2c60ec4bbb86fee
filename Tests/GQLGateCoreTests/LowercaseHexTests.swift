import GQLGateCore
import Testing

/// Bytes in lower-case hex, whether they are held in one piece or not.
@Suite struct LowercaseHexTests {
    @Test func everyByteIsTwoLowerCaseDigits() {
        let bytes: [UInt8] = [0x00, 0x0F, 0x10, 0xA5, 0xFF]
        #expect(bytes.lowercaseHex == "000f10a5ff")
        #expect(bytes.withUnsafeBytes { $0.lowercaseHex } == "000f10a5ff")
        // A sequence without contiguous storage gives the same digits.
        #expect(bytes.lazy.map { $0 }.lowercaseHex == "000f10a5ff")
        #expect(([] as [UInt8]).lowercaseHex == "")
    }
}
