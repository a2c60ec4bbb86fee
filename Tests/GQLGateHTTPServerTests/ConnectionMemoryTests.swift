import GQLGateCore
@testable import GQLGateHTTPServer
import Testing

/// The share of libmicrohttpd's connection memory a request takes, the room
/// it leaves its answer, and answer header fields cut down to that room.
@Suite struct ConnectionMemoryTests {
    @Test func theReserveIsAnEighthOfThePoolAtMost2KiB() {
        #expect(ConnectionMemory(poolBytes: 4096).answerReserve == 512)
        #expect(ConnectionMemory(poolBytes: 16_384).answerReserve == 2048)
        #expect(ConnectionMemory(poolBytes: 1 << 20).answerReserve == 2048)
    }

    @Test func aSmallRequestLeavesHalfThePoolLessItsRecords() {
        // libmicrohttpd's read buffer, half the pool, may hold what the client pipelined.
        let memory = ConnectionMemory(poolBytes: 16_384)
        #expect(memory.answerRoom(headerBlock: 500, records: 5, cookieBytes: 0) == 8192 - 6 * 64 - 192)
        #expect(memory.answerRoom(headerBlock: 8192, records: 5, cookieBytes: 0) == 8192 - 6 * 64 - 192)
    }

    @Test func aLargerRequestLeavesThePoolLessItsBlockRecordsAndCookieCopy() {
        let memory = ConnectionMemory(poolBytes: 16_384)
        #expect(memory.answerRoom(headerBlock: 10_000, records: 5, cookieBytes: 0) == 16_384 - 10_000 - 6 * 64 - 192)
        #expect(memory.answerRoom(headerBlock: 10_000, records: 7, cookieBytes: 99) == 16_384 - 10_000 - 8 * 64 - 100 - 192)
        #expect(memory.answerRoom(headerBlock: 500, records: 7, cookieBytes: 99) == 8192 - 8 * 64 - 100 - 192)
    }

    @Test func aRequestIsAdmittedOnlyWhenItLeavesTheReserve() {
        let memory = ConnectionMemory(poolBytes: 16_384)
        #expect(memory.admits(answerRoom: 2048 - 192))
        #expect(!memory.admits(answerRoom: 2047 - 192))
        let room = memory.answerRoom(headerBlock: 16_384 - 2048 - 6 * 64, records: 5, cookieBytes: 0)
        #expect(memory.admits(answerRoom: room))
        #expect(!memory.admits(answerRoom: room - 1))
        // Records take the pool too: 96 of them leave a small request too little.
        #expect(memory.admits(answerRoom: memory.answerRoom(headerBlock: 500, records: 94, cookieBytes: 0)))
        #expect(!memory.admits(answerRoom: memory.answerRoom(headerBlock: 500, records: 96, cookieBytes: 0)))
    }

    @Test func headersThatFitAreLeftAsTheyAre() {
        let headers: HTTPHeaders = ["Content-Type": "application/json", "X-Big": String(repeating: "h", count: 100)]
        #expect(ConnectionMemory.headerBytes(headers) == 12 + 16 + 4 + 5 + 100 + 4)
        let (kept, dropped) = ConnectionMemory.fitting(headers, into: ConnectionMemory.headerBytes(headers))
        #expect(kept.fields == headers.fields)
        #expect(dropped.isEmpty)
    }

    @Test func theLargestFieldsGoFirstAndTheOrderStays() {
        let headers: HTTPHeaders = [
            "X-A": String(repeating: "a", count: 300), "Content-Type": "application/json",
            "X-B": String(repeating: "b", count: 1000), "X-Request-Id": "r1", "X-C": String(repeating: "c", count: 200),
        ]
        let (kept, dropped) = ConnectionMemory.fitting(headers, into: ConnectionMemory.headerBytes(headers) - 1)
        #expect(dropped == ["X-B"])
        #expect(kept.fields.map(\.name) == ["X-A", "Content-Type", "X-Request-Id", "X-C"])
        let (fewer, droppedMore) = ConnectionMemory.fitting(headers, into: 260)
        #expect(droppedMore == ["X-A", "X-B"])
        #expect(fewer.fields.map(\.name) == ["Content-Type", "X-Request-Id", "X-C"])
    }

    @Test func theFieldsThatSayHowToReadTheBodyGoLast() {
        let headers: HTTPHeaders = [
            "Content-Type": String(repeating: "t", count: 500), "content-encoding": "gzip",
            "X-Request-Id": "r1", "X-Small": "s",
        ]
        let (kept, dropped) = ConnectionMemory.fitting(headers, into: 560)
        #expect(dropped == ["X-Small"])
        #expect(kept.fields.map(\.name) == ["Content-Type", "content-encoding", "X-Request-Id"])
        let (none, all) = ConnectionMemory.fitting(headers, into: 0)
        #expect(none.isEmpty)
        #expect(all == ["Content-Type", "content-encoding", "X-Request-Id", "X-Small"])
    }

    @Test func theHeaderBlockIsLibmicrohttpdsCountOrTheLinesWhenMore() {
        var bytes = HeaderFieldBytes()
        for (name, value) in [("Host", "gqlgate"), ("COOKIE", "a=1; b=2"), ("Cookie", "c=3")] {
            Array(name.utf8).withUnsafeBytes { name in
                Array(value.utf8).withUnsafeBytes { value in bytes.note(name: name, value: value) }
            }
        }
        #expect(bytes.cookieBytes == 11)
        // "POST /graphql HTTP/1.1\r\n" (24), "Host: gqlgate\r\n" (15), "COOKIE: a=1; b=2\r\n" (18), "Cookie: c=3\r\n" (13), "\r\n".
        #expect(bytes.headerBlock(measured: 0, requestLine: 24) == 24 + 15 + 18 + 13 + 2)
        #expect(bytes.headerBlock(measured: 100, requestLine: 24) == 100)
    }
}
