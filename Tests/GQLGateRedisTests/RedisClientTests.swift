@testable import GQLGateRedis
import Testing

@Suite(.serialized) struct RedisClientTests {
    @Test func commandsRoundTripBinaryValues() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let redis = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        let value: [UInt8] = [0, 1, 0x0D, 0x0A, 0xFF]
        #expect(try await redis.send([Array("SET".utf8), Array("k".utf8), value]).isOK)
        #expect(try await redis.send("GET", "k") == .bulk(value))
        #expect(try await redis.send("GET", "missing") == .null)
        #expect(try await redis.send("INCR", "k") == .error("ERR value is not an integer or out of range"))
    }

    @Test func aHostNameIsResolved() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let redis = RedisClient(url: RedisURL(host: "localhost", port: server.port), group: testLoops, logger: quietLogger)
        #expect(await eventually { (try? await redis.send("PING")) == .status("PONG") })
    }

    @Test func theURLsPasswordAndDatabaseAreUsed() async throws {
        let server = try RedisTestServer(arguments: ["--requirepass", "s3cret"])
        defer { server.stop() }
        var url = server.url
        url.password = "s3cret"
        url.database = 3
        let redis = RedisClient(url: url, group: testLoops, logger: quietLogger)
        #expect(try await redis.send("SET", "k", "in 3").isOK)
        url.database = 0
        let other = RedisClient(url: url, group: testLoops, logger: quietLogger)
        #expect(try await other.send("GET", "k") == .null)
        #expect(try await other.send("SELECT", "3").isOK)
        #expect(try await other.send("GET", "k") == .bulk(Array("in 3".utf8)))
    }

    @Test func aWrongPasswordLeavesNoConnection() async throws {
        let server = try RedisTestServer(arguments: ["--requirepass", "s3cret"])
        defer { server.stop() }
        var url = server.url
        url.password = "wrong"
        let redis = RedisClient(url: url, group: testLoops, logger: quietLogger)
        await #expect(throws: RedisError.self) { try await redis.send("PING") }
        #expect(await eventually { redis.isUnavailable })
    }

    @Test func aSlowServerTimesOutAndTheConnectionIsMadeAgain() async throws {
        let server = try RedisTestServer(arguments: ["--enable-debug-command", "yes"])
        defer { server.stop() }
        let redis = RedisClient(settings: .init(url: server.url, commandTimeout: .milliseconds(100)), group: testLoops, logger: quietLogger)
        #expect(try await redis.send("PING") == .status("PONG"))
        let sleeper = RedisClient(settings: .init(url: server.url, commandTimeout: .seconds(5)), group: testLoops, logger: quietLogger)
        let sleeping = Task { try await sleeper.send("DEBUG", "SLEEP", "2") }
        // Errors, not the server's late PONG: the timeout gave up, on the first connection and on the one made again.
        #expect(await eventually { (try? await redis.send("PING")) == nil })
        await #expect(throws: RedisError.self) { try await redis.send("PING") }
        _ = try await sleeping.value
        #expect(await eventually { (try? await redis.send("PING")) == .status("PONG") })
    }

    @Test func commandsFailAtOnceWhileRedisIsDownAndWorkAgainWhenItIsBack() async throws {
        let server = try RedisTestServer()
        let redis = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        #expect(try await redis.send("PING") == .status("PONG"))
        server.stop()
        #expect(await eventually { (try? await redis.send("PING")) == nil })
        #expect(redis.isUnavailable)
        let restarted = try server.restarted()
        defer { restarted.stop() }
        #expect(await eventually { (try? await redis.send("PING")) == .status("PONG") })
        #expect(!redis.isUnavailable)
    }
}
