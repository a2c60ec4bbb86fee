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

    @Test func aRequestIsAdmittedOnlyWhenItLeavesTheReserve() {
        let memory = ConnectionMemory(poolBytes: 16_384)
        #expect(memory.admits(requestBytes: 16_384 - 2048))
        #expect(!memory.admits(requestBytes: 16_384 - 2047))
        #expect(memory.answerRoom(requestBytes: 1000) == 16_384 - 1000 - ConnectionMemory.answerOverheadBytes)
    }

    @Test func aRequestTakesItsBlockARecordPerValueAndACopyOfItsCookies() {
        // One record more than the values: the `Connection: close` the server may add.
        #expect(ConnectionMemory.requestBytes(headerBlock: 500, records: 5, cookieBytes: 0) == 500 + 6 * 64)
        #expect(ConnectionMemory.requestBytes(headerBlock: 500, records: 7, cookieBytes: 99) == 500 + 8 * 64 + 100)
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

    @Test func aBlockInOneBufferIsMeasuredFromItsFirstByteToItsLast() {
        // "POST /graphql HTTP/1.1\r\nHost:   gqlgate\r\nCookie: a=1; b=2\r\n\r\n", parsed in place.
        let block = Array("POST /graphql HTTP/1.1\r\nHost:   gqlgate\r\nCookie: a=1; b=2\r\n\r\n".utf8)
        block.withUnsafeBytes { buffer in
            var extent = HeaderBlockExtent()
            extent.noteField(name: slice(buffer, 24, 4), value: slice(buffer, 32, 7))
            extent.noteField(name: slice(buffer, 41, 6), value: slice(buffer, 49, 8))
            extent.noteRequestLine(method: slice(buffer, 0, 4), path: slice(buffer, 5, 8))
            #expect(extent.bytes(limit: 16_384) == block.count)
            #expect(extent.cookieBytes == 8)
        }
    }

    @Test func fieldsApartFromEachOtherAreMeasuredByTheirLengths() {
        let method = Array("GET".utf8), path = Array("/x".utf8), name = Array("Host".utf8), value = Array("h".utf8)
        method.withUnsafeBytes { method in
            path.withUnsafeBytes { path in
                name.withUnsafeBytes { name in
                    value.withUnsafeBytes { value in
                        var extent = HeaderBlockExtent()
                        extent.noteRequestLine(method: method, path: path)
                        extent.noteField(name: name, value: value)
                        // "GET /x HTTP/1.1\r\n" + "Host: h\r\n" + "\r\n", whatever lies between the arrays.
                        #expect(extent.bytes(limit: 0) == 17 + 9 + 2)
                        #expect(extent.cookieBytes == 0)
                    }
                }
            }
        }
    }

    private func slice(_ buffer: UnsafeRawBufferPointer, _ start: Int, _ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[start..<start + count])
    }
}
