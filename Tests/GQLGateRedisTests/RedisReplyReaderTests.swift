@testable import GQLGateRedis
import Testing

@Suite struct RedisReplyReaderTests {
    private func read(_ reader: RedisReplyReader, _ text: String) throws -> [RedisReply] {
        try Array(text.utf8).withUnsafeBytes { try reader.read($0) }
    }

    @Test func repliesAreReadAsTheyArriveInAnyPieces() throws {
        let reader = RedisReplyReader(maxElements: 10, maxBytes: 100)
        #expect(try read(reader, "+OK\r\n$3\r\nab") == [.status("OK")])
        #expect(try read(reader, "c\r\n*2\r\n:1\r\n$-1\r\n-ERR no\r\n") == [.bulk(Array("abc".utf8)), .array([.integer(1), .null]), .error("ERR no")])
    }

    @Test func anArrayAnnouncedPastTheBoundIsRefusedAtItsFirstLine() {
        #expect(throws: RedisReplyReader.Failure(message: "a reply past its bounds")) {
            try read(RedisReplyReader(maxElements: 1 << 20, maxBytes: 1 << 20), "*1000000000\r\n")
        }
    }

    @Test func elementsAndBytesAreCountedOverTheWholeReply() throws {
        #expect(throws: RedisReplyReader.Failure.self) { try read(RedisReplyReader(maxElements: 4, maxBytes: 100), "*2\r\n*2\r\n:1\r\n:2\r\n*2\r\n:3\r\n:4\r\n") }
        #expect(throws: RedisReplyReader.Failure.self) { try read(RedisReplyReader(maxElements: 10, maxBytes: 5), "*2\r\n$3\r\nabc\r\n$3\r\ndef\r\n") }
        // Each reply is counted afresh.
        let reader = RedisReplyReader(maxElements: 2, maxBytes: 3)
        #expect(try read(reader, "*2\r\n$1\r\na\r\n$2\r\nbc\r\n*2\r\n$3\r\nabc\r\n$-1\r\n").count == 2)
    }

    @Test func aBulkStillArrivingPastTheBoundIsRefused() {
        let reader = RedisReplyReader(maxElements: 10, maxBytes: 16)
        #expect(throws: RedisReplyReader.Failure.self) { try read(reader, "$1000\r\n" + String(repeating: "x", count: 40)) }
    }

    @Test func nestingDeeperThanTheReaderGoesAndGarbageAreRefused() {
        #expect(throws: RedisReplyReader.Failure.self) {
            try read(RedisReplyReader(maxElements: 100, maxBytes: 100), String(repeating: "*1\r\n", count: 10) + ":1\r\n")
        }
        #expect(throws: RedisReplyReader.Failure.self) { try read(RedisReplyReader(maxElements: 100, maxBytes: 100), "hello\r\n") }
    }
}
