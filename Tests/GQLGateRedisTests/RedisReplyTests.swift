import CHiredis
import Testing
@testable import GQLGateRedis

/// Parses RESP bytes with hiredis' own reader and maps the reply.
private func reply(_ resp: String) throws -> RedisReply {
    let reader = redisReaderCreate()!
    defer { redisReaderFree(reader) }
    let bytes = Array(resp.utf8)
    _ = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { redisReaderFeed(reader, $0.baseAddress, buffer.count) }
    }
    var raw: UnsafeMutableRawPointer?
    guard redisReaderGetReply(reader, &raw) == REDIS_OK, let raw else { throw RedisTestError("no reply in \(resp)") }
    defer { freeReplyObject(raw) }
    return RedisReply(hiredis: raw.assumingMemoryBound(to: redisReply.self))
}

@Suite struct RedisReplyTests {
    @Test func scalarReplies() throws {
        #expect(try reply("+OK\r\n") == .status("OK"))
        #expect(try reply("+OK\r\n").isOK)
        #expect(try reply("-WRONGTYPE Operation against a key\r\n") == .error("WRONGTYPE Operation against a key"))
        #expect(try reply(":-42\r\n") == .integer(-42))
        #expect(try reply(":7\r\n").integer == 7)
        #expect(try reply("$-1\r\n") == .null)
        #expect(try reply("*-1\r\n") == .null)
    }

    @Test func bulkStringsKeepEveryByte() throws {
        #expect(try reply("$5\r\na\r\0bc\r\n") == .bulk([0x61, 0x0D, 0x00, 0x62, 0x63]))
        #expect(try reply("$0\r\n\r\n").bytes == [])
        #expect(try reply("+OK\r\n").bytes == nil)
    }

    @Test func arraysNest() throws {
        #expect(try reply("*3\r\n$1\r\na\r\n*1\r\n:1\r\n$-1\r\n") == .array([.bulk([0x61]), .array([.integer(1)]), .null]))
        #expect(try reply("*0\r\n").elements == [])
    }
}
