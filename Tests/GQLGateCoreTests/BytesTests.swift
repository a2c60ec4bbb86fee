import GQLGateCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct BytesTests {
    @Test func copiesStringsAndArraysByteForByte() {
        let text = Bytes("héllo")
        #expect(text.count == 6)
        #expect(text.array == Array("héllo".utf8))
        #expect(text.string == "héllo")
        #expect(Bytes([0, 1, 255]).array == [0, 1, 255])
    }

    @Test func emptyInputHasNoMemory() {
        #expect(Bytes("").baseAddress == nil)
        #expect(Bytes([]).count == 0)
        #expect(Bytes.empty.baseAddress == nil)
        #expect(Bytes.empty.string == "")
        #expect(Bytes("") == Bytes.empty)
    }

    @Test func aCopyDoesNotShareTheSourcesMemory() {
        var source: [UInt8] = [1, 2, 3]
        let copy = source.withUnsafeBytes { Bytes($0) }
        source[0] = 9
        #expect(copy.array == [1, 2, 3])
    }

    @Test func takesOwnershipOfMallocdMemory() {
        let memory = malloc(3)!
        memory.copyMemory(from: [UInt8]("abc".utf8), byteCount: 3)
        let bytes = Bytes(takingOwnershipOf: memory, count: 3)
        #expect(bytes.baseAddress == memory)
        #expect(bytes.string == "abc")
    }

    @Test func equalityComparesContents() {
        #expect(Bytes("abc") == Bytes([0x61, 0x62, 0x63]))
        #expect(Bytes("abc") != Bytes("abd"))
        #expect(Bytes("abc") != Bytes("ab"))
    }

    @Test func invalidUTF8IsRepairedWhenReadAsText() {
        #expect(Bytes([0x61, 0xC3, 0x62]).string == "a\u{FFFD}b")
    }

    @Test func removingRangesKeepsEveryOtherByteInOrder() {
        let bytes = Bytes("0123456789")
        #expect(bytes.removing([1..<3, 5..<6, 9..<10]).string == "034678")
        #expect(bytes.removing([]).string == "0123456789")
        #expect(bytes.removing([0..<10]) == .empty)
        #expect(bytes.removing([0..<0, 10..<10]).string == "0123456789")
    }
}

@Suite struct ByteAccumulatorTests {
    @Test func collectsAppendsInOrderAcrossGrowth() {
        var accumulator = ByteAccumulator()
        var expected: [UInt8] = []
        for round in 0..<300 {
            let chunk = [UInt8](repeating: UInt8(round % 251), count: round % 7 + 1)
            #expect(chunk.withUnsafeBytes { accumulator.append($0.baseAddress!, length: $0.count) })
            expected += chunk
        }
        #expect(accumulator.count == expected.count)
        #expect(accumulator.take().array == expected)
    }

    @Test func takeHandsTheBytesOverAndStartsAgainEmpty() {
        var accumulator = ByteAccumulator()
        _ = [UInt8]("first".utf8).withUnsafeBytes { accumulator.append($0.baseAddress!, length: $0.count) }
        let first = accumulator.take()
        #expect(accumulator.count == 0)
        _ = [UInt8]("second".utf8).withUnsafeBytes { accumulator.append($0.baseAddress!, length: $0.count) }
        #expect(first.string == "first")
        #expect(accumulator.take().string == "second")
        #expect(accumulator.take() == .empty)
    }

    @Test func reservedRoomTakesAppendsWithoutGrowing() {
        var accumulator = ByteAccumulator()
        let reserved = accumulator.reserve(10_000)
        #expect(reserved)
        #expect(accumulator.capacity == 10_000)
        let reservedLess = accumulator.reserve(100)  // less than it has: nothing changes
        #expect(reservedLess)
        let chunk = [UInt8](repeating: 0x61, count: 1000)
        for _ in 0..<10 {
            _ = chunk.withUnsafeBytes { accumulator.append($0.baseAddress!, length: $0.count) }
        }
        #expect(accumulator.capacity == 10_000)
        _ = chunk.withUnsafeBytes { accumulator.append($0.baseAddress!, length: 1) }
        #expect(accumulator.capacity == 20_000)
        #expect(accumulator.take().count == 10_001)
    }

    @Test func emptyAppendsChangeNothing() {
        var accumulator = ByteAccumulator()
        var byte: UInt8 = 7
        #expect(accumulator.append(&byte, length: 0))
        #expect(accumulator.count == 0)
        #expect(accumulator.take().baseAddress == nil)
    }
}
