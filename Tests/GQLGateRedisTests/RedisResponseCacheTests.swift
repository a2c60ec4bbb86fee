import GQLGateExchanges
import GQLGatePipeline
import GQLGateRedis
import Testing

@Suite(.serialized) struct RedisResponseCacheTests {
    private func cache(_ server: RedisTestServer, prefix: String = "gqlgate:", staleWhileRevalidate: Duration = .zero,
                       staleIfError: Duration = .zero) async -> RedisResponseCache {
        RedisResponseCache(client: await connectedClient(server), keys: RedisCacheKeys(prefix: prefix),
                           staleWhileRevalidate: staleWhileRevalidate, staleIfError: staleIfError)
    }

    @Test func anAnswerStoredByOneReplicaIsFoundByAnother() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let (a, b) = (await cache(server), await cache(server))
        let key = requestKey("{ reviews { stars } }", authorization: "Bearer one")
        let tags = CacheTags(entities: ["Review:1"], types: ["Review"], arguments: ["episode": ["JEDI"]])
        #expect(await a.store(cachedAnswer("one", storedAt: .seconds(1_000), tags: tags), for: key))
        guard case .fresh(let found, let age) = await b.lookup(key, now: .seconds(1_003)) else {
            Issue.record("expected a fresh answer")
            return
        }
        #expect(age == .seconds(3))
        #expect(found.body.string == "one")
        #expect(found.tags == tags)
        #expect(found.headers["cache-control"] == "max-age=60")
        #expect(describe(await b.lookup(requestKey("{ reviews { stars } }", authorization: "Bearer two"), now: .seconds(1_003))) == "miss")
        #expect(describe(await cache(server, prefix: "other:").lookup(key, now: .seconds(1_003))) == "miss")
    }

    @Test func staleWindowsAndTheOneRefreshClaim() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let (a, b) = (await cache(server, staleWhileRevalidate: .seconds(5), staleIfError: .seconds(20)),
                      await cache(server, staleWhileRevalidate: .seconds(5), staleIfError: .seconds(20)))
        let key = requestKey("{ a }")
        await a.store(cachedAnswer("a", storedAt: .seconds(1_000), ttl: .seconds(10)), for: key)
        #expect(describe(await a.lookup(key, now: .seconds(1_009))) == "fresh a 9s")
        #expect(describe(await a.lookup(key, now: .seconds(1_011))) == "stale a 11s refresh=true")
        #expect(describe(await b.lookup(key, now: .seconds(1_012))) == "stale a 12s refresh=false")
        await a.refreshFailed(key)
        #expect(describe(await b.lookup(key, now: .seconds(1_012))) == "stale a 12s refresh=true")
        await b.store(cachedAnswer("b", storedAt: .seconds(1_012), ttl: .seconds(10)), for: key)
        #expect(describe(await a.lookup(key, now: .seconds(1_023))) == "stale b 11s refresh=true")
        #expect(describe(await a.lookup(key, now: .seconds(1_030))) == "expired b 18s")
        #expect(describe(await a.lookup(key, now: .seconds(1_042))) == "miss")
    }

    @Test func answersExpireInRedisAfterTheirLastWindow() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        // A TTL of a second and a stale window of five: the key's time to live, read at once, is over the TTL
        // alone, with seconds to spare on a loaded machine.
        let cache = await cache(server, staleIfError: .seconds(5))
        let key = requestKey("{ a }")
        let redis = await connectedClient(server)
        #expect(await cache.store(cachedAnswer("a", storedAt: .zero, ttl: .seconds(1)), for: key))
        let ttl = try await redis.send("PTTL", RedisCacheKeys().answer(key)).integer ?? -1
        #expect((1_001...6_000).contains(ttl), "\(ttl) ms")
        #expect(await eventually(timeout: .seconds(30)) { describe(await cache.lookup(key, now: .zero)) == "miss" })
    }

    @Test func purgeRemovesEntitiesAndTypesWhoseArgumentsDoNotDisagree() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let (a, b) = (await cache(server), await cache(server))
        let jedi = requestKey("{ reviews(episode: JEDI) { stars } }")
        let empire = requestKey("{ reviews(episode: EMPIRE) { stars } }")
        let hero = requestKey("{ hero { name } }")
        let review7 = requestKey("{ review(id: 7) { stars } }")
        await a.store(cachedAnswer("jedi", tags: CacheTags(types: ["Review"], arguments: ["episode": ["JEDI"]])), for: jedi)
        await a.store(cachedAnswer("empire", tags: CacheTags(types: ["Review"], arguments: ["episode": ["EMPIRE"]])), for: empire)
        await a.store(cachedAnswer("hero", tags: CacheTags(types: ["Character"])), for: hero)
        await a.store(cachedAnswer("7", tags: CacheTags(entities: ["Review:7"], types: ["Review"], arguments: ["id": ["7"]])), for: review7)
        #expect(await b.purge(entities: ["Review:7"], types: ["Review"], arguments: ["episode": ["JEDI"]]) == 2)
        #expect(describe(await a.lookup(jedi, now: .seconds(1_000))) == "miss")
        #expect(describe(await a.lookup(review7, now: .seconds(1_000))) == "miss")
        #expect(describe(await a.lookup(empire, now: .seconds(1_000))) == "fresh empire 0s")
        #expect(describe(await a.lookup(hero, now: .seconds(1_000))) == "fresh hero 0s")
        #expect(b.statistics.invalidations == 2)
        #expect(await b.purge(entities: ["Review:7"], types: [], arguments: [:]) == 0)
    }

    @Test func anUnreadableRecordIsAMissAndAKeyOfAnotherTypeIsAnError() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let cache = await cache(server)
        let redis = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        let (garbled, wrongType) = (requestKey("{ a }"), requestKey("{ b }"))
        #expect(try await redis.send("SET", RedisCacheKeys().answer(garbled), "not a record").isOK)
        #expect(try await redis.send("SADD", RedisCacheKeys().answer(wrongType), "x") == .integer(1))
        #expect(describe(await cache.lookup(garbled, now: .zero)) == "miss")
        #expect(describe(await cache.lookup(wrongType, now: .zero)) == "unavailable")
        #expect(cache.statistics.storeErrors == 1)
        #expect(await cache.store(cachedAnswer("a"), for: garbled))
        #expect(describe(await cache.lookup(garbled, now: .seconds(1_000))) == "fresh a 0s")
    }

    @Test func redisDownIsUnavailableAndCachingResumesWhenItIsBack() async throws {
        let server = try RedisTestServer()
        let cache = await cache(server)
        let key = requestKey("{ a }")
        #expect(await cache.store(cachedAnswer("a"), for: key))
        server.stop()
        #expect(await eventually { describe(await cache.lookup(key, now: .seconds(1_000))) == "unavailable" })
        #expect(await cache.store(cachedAnswer("a"), for: key) == false)
        #expect(await cache.purge(entities: ["Review:1"], types: [], arguments: [:]) == 0)
        #expect(cache.statistics.storeErrors >= 3)
        let restarted = try server.restarted()
        defer { restarted.stop() }
        #expect(await eventually { await cache.store(cachedAnswer("again"), for: key) })
        #expect(describe(await cache.lookup(key, now: .seconds(1_000))) == "fresh again 0s")
    }

    @Test func outcomesAreCountedWithoutAskingRedis() throws {
        let cache = RedisResponseCache(client: RedisClient(url: RedisURL(host: "127.0.0.1", port: try freePort()), group: testLoops,
                                                           logger: quietLogger))
        for outcome in [CacheOutcome.hit, .hit, .miss, .bypass] { cache.record(outcome) }
        #expect(cache.statistics.hits == 2)
        #expect(cache.statistics.misses == 1)
        #expect(cache.statistics.bypasses == 1)
    }
}
