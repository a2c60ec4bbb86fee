import GQLGateExchanges
import GQLGatePipeline
@testable import GQLGateRedis
import Testing

@Suite struct CacheInvalidationMessageTests {
    @Test func aMessageReadsBackAsSent() {
        let purge = CachePurge(entities: ["Review:7", CacheTags.everyAnswer], types: ["Review"], arguments: ["episode": ["JEDI", "EMPIRE"]],
                               soft: true)
        let message = CacheInvalidationMessage(sender: "a1", purge: purge)
        #expect(CacheInvalidationMessage(decoding: message.encoded) == message)
        #expect(CacheInvalidationMessage(decoding: Array(message.encoded.dropLast())) == nil)
        #expect(CacheInvalidationMessage(decoding: Array("GQI1 not a message".utf8)) == nil)
    }
}

@Suite(.serialized) struct TieredResponseCacheTests {
    private func tiered(_ server: RedisTestServer, staleWhileRevalidate: Duration = .zero) -> TieredResponseCache {
        let client = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        return TieredResponseCache(
            memory: MemoryResponseCache(maxBytes: 1 << 20, staleWhileRevalidate: staleWhileRevalidate),
            redis: RedisResponseCache(client: client, staleWhileRevalidate: staleWhileRevalidate), client: client, channel: "gqlgate:invalidations")
    }

    @Test func aMissInMemoryIsReadFromRedisAndKeptInMemory() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let (a, b) = (tiered(server), tiered(server))
        let key = requestKey("{ reviews { stars } }")
        #expect(await a.store(cachedAnswer("one", storedAt: .seconds(1_000)), for: key))
        #expect(a.freshHit(for: key, now: .seconds(1_001)) != nil)
        #expect(b.freshHit(for: key, now: .seconds(1_001)) == nil)
        #expect(describe(await b.lookup(key, now: .seconds(1_001))) == "fresh one 1s")
        #expect(b.freshHit(for: key, now: .seconds(1_002))?.age == .seconds(2))
    }

    @Test func aPurgeOnOneReplicaReachesTheOthersMemory() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let (a, b) = (tiered(server), tiered(server))
        let key = requestKey("{ review(id: 7) { stars } }")
        #expect(await a.store(cachedAnswer("7", tags: CacheTags(entities: ["Review:7"])), for: key))
        _ = await b.lookup(key, now: .seconds(1_001))
        #expect(b.freshHit(for: key, now: .seconds(1_001)) != nil)
        #expect(await eventually { await a.purge(entities: ["Review:7"], types: [], arguments: [:]) >= 0 && b.freshHit(for: key, now: .seconds(1_001)) == nil })
        #expect(describe(await b.lookup(key, now: .seconds(1_001))) == "miss")
    }

    @Test func aSoftPurgeLeavesAnswersStaleInBothTiers() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let cache = tiered(server, staleWhileRevalidate: .seconds(30))
        let key = requestKey("{ hero { name } }")
        #expect(await cache.store(cachedAnswer("hero", storedAt: .seconds(1_000), ttl: .seconds(60), tags: CacheTags(entities: [CacheTags.everyAnswer])),
                                  for: key))
        #expect(await cache.purge(CachePurge(entities: [CacheTags.everyAnswer], soft: true), now: .seconds(1_005)) == 1)
        #expect(cache.freshHit(for: key, now: .seconds(1_006)) == nil)
        #expect(describe(await cache.lookup(key, now: .seconds(1_006))) == "stale hero 6s refresh=true")
        let other = tiered(server, staleWhileRevalidate: .seconds(30))
        #expect(describe(await other.lookup(key, now: .seconds(1_006))) == "stale hero 6s refresh=false")
    }
}
