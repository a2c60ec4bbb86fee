@_spi(GQLGateInternals) import GQLGateCore
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
    private func tiered(_ server: RedisTestServer, staleWhileRevalidate: Duration = .zero) async -> TieredResponseCache {
        let client = await connectedClient(server)
        return TieredResponseCache(
            memory: MemoryResponseCache(maxBytes: 1 << 20, staleWhileRevalidate: staleWhileRevalidate),
            redis: RedisResponseCache(client: client, staleWhileRevalidate: staleWhileRevalidate), client: client, channel: "gqlgate:invalidations")
    }

    @Test func aMissInMemoryIsReadFromRedisAndKeptInMemory() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let (a, b) = (await tiered(server), await tiered(server))
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
        let (a, b) = (await tiered(server), await tiered(server))
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
        let cache = await tiered(server, staleWhileRevalidate: .seconds(30))
        let key = requestKey("{ hero { name } }")
        #expect(await cache.store(cachedAnswer("hero", storedAt: .seconds(1_000), ttl: .seconds(60), tags: CacheTags(entities: [CacheTags.everyAnswer])),
                                  for: key))
        #expect(await cache.purge(CachePurge(entities: [CacheTags.everyAnswer], soft: true), now: .seconds(1_005)) == 1)
        #expect(cache.freshHit(for: key, now: .seconds(1_006)) == nil)
        #expect(describe(await cache.lookup(key, now: .seconds(1_006))) == "stale hero 6s refresh=true")
        let other = await tiered(server, staleWhileRevalidate: .seconds(30))
        #expect(describe(await other.lookup(key, now: .seconds(1_006))) == "stale hero 6s refresh=false")
    }
}

@Suite(.serialized) struct InvalidationPublisherTests {
    private let channel = "gqlgate-test:invalidations"

    /// A client logged in as a user Redis refuses `PUBLISH`, until `ACL SETUSER publisher +publish`.
    private func refusedPublisher(_ server: RedisTestServer) async throws -> InvalidationPublisher {
        let admin = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        #expect(await eventually { (try? await admin.send("ACL", "SETUSER", "publisher", "on", ">pw", "~*", "&*", "+@all", "-publish")) == .status("OK") })
        var url = server.url
        (url.user, url.password) = ("publisher", "pw")
        let client = RedisClient(url: url, group: testLoops, logger: quietLogger)
        return InvalidationPublisher(client: client, channel: channel, recorder: nil,
                                     backoff: Backoff(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(50), jitter: .none))
    }

    @Test func purgesRedisRefusedArePublishedInOrderOnceItTakesThem() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let received = Lock<[CacheInvalidationMessage]>([])
        let listener = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        let subscription = listener.subscribe(channel, onMessage: { payload in
            if let message = CacheInvalidationMessage(decoding: payload) { received.withLock { $0.append(message) } }
        }, onResubscribed: {})
        defer { withExtendedLifetime(subscription) {} }
        let publisher = try await refusedPublisher(server)
        let purges = (1...3).map { CacheInvalidationMessage(sender: "a", purge: CachePurge(entities: ["Review:\($0)"])) }
        for purge in purges { await publisher.publish(purge) }
        #expect(publisher.waiting == 3)
        let admin = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        #expect(try await admin.send("ACL", "SETUSER", "publisher", "+publish") == .status("OK"))
        #expect(await eventually { publisher.waiting == 0 })
        #expect(await eventually { received.withLock { $0 } == purges })
    }

    @Test func pastTheLimitTheWaitingPurgesBecomeOnePurgeOfEverything() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let publisher = try await refusedPublisher(server)
        for n in 0...InvalidationPublisher.limit {
            await publisher.publish(CacheInvalidationMessage(sender: "a", purge: CachePurge(entities: ["Review:\(n)"])))
        }
        #expect(publisher.waiting == 1)
    }
}
