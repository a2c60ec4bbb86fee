@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateRedis
import Testing

/// The `redisCommandFailed` facts a store stated.
private final class FailedCommands: FactRecorder, Sendable {
    private let stores = Lock<[SharedStore]>([])
    var failed: [SharedStore] { stores.withLock { $0 } }
    func record(_ fact: OperationFact, in record: OperationRecord) {}
    func record(_ fact: GatewayFact) {
        if case .redisCommandFailed(let store) = fact { stores.withLock { $0.append(store) } }
    }
}

private let query = "query Hello { hello }"
private let hash = DocumentCache.digest(of: query).hexString

@Suite(.serialized) struct RedisPersistedQueryStoreTests {
    private func store(_ url: RedisURL, prefix: String = "gqlgate:", ttl: Duration = RedisPersistedQueryStore.defaultTTL,
                       commandTimeout: Duration = .milliseconds(250), recorder: FailedCommands? = nil) -> RedisPersistedQueryStore {
        let client = RedisClient(settings: .init(url: url, commandTimeout: commandTimeout), group: testLoops, logger: quietLogger)
        return RedisPersistedQueryStore(client: client, keyPrefix: prefix, ttl: ttl, recorder: recorder)
    }

    @Test func aHashRegisteredThroughOneClientIsFoundThroughAnother() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let (a, b) = (store(server.url), store(server.url))
        // The first command may come before the client's connection is up (the store then says it did not keep it).
        #expect(await eventually { await a.register(hash: hash, document: query) })
        #expect(await b.document(forHash: hash) == query)
        #expect(await b.document(forHash: String(repeating: "0", count: 64)) == nil)
        #expect(await store(server.url, prefix: "other:").document(forHash: hash) == nil)
        let redis = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        #expect(a.key(forHash: hash) == "gqlgate:apq:\(hash)")
        #expect(try await redis.send("GET", "gqlgate:apq:\(hash)") == .bulk(Array(query.utf8)), "the text as sent")
    }

    @Test func aRegistrationLivesItsTTLAndEachOneRefreshesIt() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let redis = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        let day = store(server.url)
        #expect(await eventually { await day.register(hash: hash, document: query) })
        let ttl = try await redis.send("TTL", day.key(forHash: hash)).integer ?? -1
        #expect((86_390...86_400).contains(ttl))
        #expect(try await redis.send("EXPIRE", day.key(forHash: hash), "5") == .integer(1))
        #expect(await day.register(hash: hash, document: query))
        #expect((86_390...86_400).contains(try await redis.send("TTL", day.key(forHash: hash)).integer ?? -1))
        let short = store(server.url, prefix: "short:", ttl: .milliseconds(1_500))
        #expect(await eventually { await short.register(hash: hash, document: query) })
        // EX takes whole seconds: 1.5 s is rounded up to 2 (a second would have 1 000 ms left at most).
        #expect((1_001...2_000).contains(try await redis.send("PTTL", short.key(forHash: hash)).integer ?? -1))
    }

    @Test func redisDownFindsNothingKeepsNothingAndCountsWithoutThrowing() async throws {
        let server = try RedisTestServer()
        let recorder = FailedCommands()
        let queries = store(server.url, recorder: recorder)
        #expect(await eventually { await queries.register(hash: hash, document: query) })
        let before = recorder.failed.count
        server.stop()
        #expect(await eventually { await queries.document(forHash: hash) == nil })
        #expect(await queries.register(hash: hash, document: query) == false)
        #expect(recorder.failed.count >= before + 2)
        #expect(Set(recorder.failed) == [.apq])
        let restarted = try server.restarted()
        defer { restarted.stop() }
        #expect(await eventually { await queries.register(hash: hash, document: query) })
        #expect(await queries.document(forHash: hash) == query)
    }

    @Test func aSlowRedisCountsAsUnavailable() async throws {
        let server = try RedisTestServer(arguments: ["--enable-debug-command", "yes"])
        defer { server.stop() }
        let recorder = FailedCommands()
        let queries = store(server.url, commandTimeout: .milliseconds(100), recorder: recorder)
        #expect(await eventually { await queries.register(hash: hash, document: query) })
        let sleeper = RedisClient(settings: .init(url: server.url, commandTimeout: .seconds(5)), group: testLoops, logger: quietLogger)
        let sleeping = Task { try await sleeper.send("DEBUG", "SLEEP", "2") }
        // Nothing, not the registered document: the command timeout gave up; the server's late reply would have carried it.
        #expect(await eventually { await queries.document(forHash: hash) == nil })
        #expect(recorder.failed.contains(.apq))
        _ = try await sleeping.value
        #expect(await eventually { await queries.document(forHash: hash) == query })
    }

    @Test func aKeyOfAnotherTypeIsAFailureAndAValueNotUTF8IsNothing() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let recorder = FailedCommands()
        let queries = store(server.url, recorder: recorder)
        let redis = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        let (listed, binary) = (String(repeating: "1", count: 64), String(repeating: "2", count: 64))
        #expect(try await redis.send("SADD", queries.key(forHash: listed), "x") == .integer(1))
        #expect(try await redis.send([Array("SET".utf8), Array(queries.key(forHash: binary).utf8), [0xff, 0xfe]]).isOK)
        #expect(await queries.document(forHash: listed) == nil)
        #expect(recorder.failed == [.apq])
        #expect(await queries.document(forHash: binary) == nil)
        #expect(recorder.failed == [.apq])
    }
}
