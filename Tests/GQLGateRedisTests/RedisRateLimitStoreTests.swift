@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateRedis
import Logging
import Testing

/// Log lines, kept (level and message).
final class LogLines: Sendable {
    private let lines = Lock<[(Logger.Level, String)]>([])

    var all: [(level: Logger.Level, message: String)] { lines.withLock { $0 } }

    var logger: Logger {
        Logger(label: "gqlgate.redis.tests") { _ in Handler(lines: self) }
    }

    private struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.lines.withLock { $0.append((event.level, "\(event.message)")) }
        }
    }
}

/// Gateway facts, kept.
final class GatewayFacts: FactRecorder {
    private let facts = Lock<[GatewayFact]>([])

    var all: [GatewayFact] { facts.withLock { $0 } }

    var rateLimitCommandsFailed: Int {
        all.filter { if case .redisCommandFailed(.rateLimit) = $0 { true } else { false } }.count
    }

    func record(_ fact: OperationFact, in record: OperationRecord) {}

    func record(_ fact: GatewayFact) {
        facts.withLock { $0.append(fact) }
    }
}

@Suite(.serialized) struct RedisRateLimitStoreTests {
    /// 50 requests a second, a burst of 50.
    private func policy(activeFor: Duration = .seconds(1)) -> SharedRateLimitPolicy {
        SharedRateLimitPolicy(interval: 20_000_000, capacity: 1_000_000_000, activeFor: activeFor)
    }

    private func store(_ server: RedisTestServer, recorder: (any FactRecorder)? = nil, logger: Logger? = nil) -> RedisRateLimitStore {
        RedisRateLimitStore(client: RedisClient(url: server.url, group: testLoops, logger: quietLogger), keyPrefix: "rl-test:",
                            recorder: recorder, logger: logger)
    }

    /// Waits until the store's connection is up (its first commands may come before).
    /// The probe counts among the replicas running for `policy`'s `activeFor`.
    private func connected(_ store: RedisRateLimitStore, policy: SharedRateLimitPolicy? = nil) async -> Bool {
        await eventually { await store.announce(replica: "probe", policy: policy ?? self.policy()) != nil }
    }

    @Test func theScriptsAreSentByTheSHA1RedisKnowsThemBy() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let redis = await connectedClient(server)
        let settle = try await redis.send("SCRIPT", "LOAD", RedisRateLimitStore.settleScript)
        #expect(settle.bytes.map { String(decoding: $0, as: UTF8.self) } == RedisRateLimitStore.settleScriptSHA1)
        let announce = try await redis.send("SCRIPT", "LOAD", RedisRateLimitStore.announceScript)
        #expect(announce.bytes.map { String(decoding: $0, as: UTF8.self) } == RedisRateLimitStore.announceScriptSHA1)
    }

    @Test func aSettlementAddsToTheFleetsBucketAndCountsTheReplicasTakingFromIt() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let store = store(server)
        #expect(await connected(store))
        // The bucket's arrival time is in Redis's clock: each answer is its lead over Redis's now,
        // which moved on by at most the time since the first command was sent (and a millisecond
        // or two of rounding: Redis keeps expiry times in whole milliseconds).
        let start = ContinuousClock.now
        func within(_ lead: UInt64, of expected: Duration) -> Bool {
            let late = ContinuousClock.now - start + .milliseconds(2)
            return (expected - late).nanoseconds...expected.nanoseconds ~= lead
        }
        let first = try #require(await store.settle("k", admitted: 10, replica: "a", policy: policy()))
        #expect(within(first.ahead, of: .milliseconds(200)), "10 requests at 20 ms: \(first.ahead)")
        #expect(first.replicas == 1)
        let second = try #require(await store.settle("k", admitted: 5, replica: "b", policy: policy()))
        #expect(within(second.ahead, of: .milliseconds(300)), "15 requests at 20 ms: \(second.ahead)")
        #expect(second.replicas == 2)
        #expect(await store.settle("k", admitted: 0, replica: "a", policy: policy())?.replicas == 2)
        #expect(await store.settle("other", admitted: 0, replica: "a", policy: policy()) == SharedBucket(ahead: 0, replicas: 1))
        // Past a full bucket the fleet is in debt: the arrival time runs on beyond the capacity.
        let debt = try #require(await store.settle("k", admitted: 100, replica: "a", policy: policy()))
        #expect(within(debt.ahead, of: .milliseconds(2_300)))

        let redis = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        let ttl = try await redis.send("PTTL", store.bucketKey("k")).integer ?? -1
        // Once full again (2.3 s on) and no replica settled it for `activeFor` (1 s).
        #expect(within(UInt64(max(0, ttl)) * 1_000_000, of: .milliseconds(3_301)), "\(ttl) ms")
        let fields = try await redis.send("HKEYS", store.bucketKey("k")).elements?.compactMap(\.bytes) ?? []
        #expect(Set(fields.map { String(decoding: $0, as: UTF8.self) }) == ["=", "a", "b"])
    }

    @Test func replicasThatStopSettlingStopCounting() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let store = store(server)
        // Counted while they settle within `activeFor`: a long one here, so a slow machine counts the same
        // (the probe's too: an announcement sets how long the list of replicas lives).
        let steady = policy(activeFor: .seconds(60))
        #expect(await connected(store, policy: steady))
        #expect(await store.settle("k", admitted: 1, replica: "a", policy: steady)?.replicas == 1)
        #expect(await store.settle("k", admitted: 1, replica: "b", policy: steady)?.replicas == 2)
        #expect(await store.announce(replica: "a", policy: steady) == 2)  // and the probe of `connected`
        #expect(await store.announce(replica: "b", policy: steady) == 3)
        // Only "a" goes on: "b" (and the probe) stop counting once a shorter `activeFor` has passed.
        let quick = policy(activeFor: .seconds(1))
        #expect(await eventually { await store.settle("k", admitted: 0, replica: "a", policy: quick)?.replicas == 1 })
        #expect(await eventually { await store.announce(replica: "a", policy: quick) == 1 })
        let redis = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        #expect(try await redis.send("HLEN", store.bucketKey("k")).integer == 2)
    }

    @Test func aServerThatLostTheScriptsIsSentThemAgain() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let store = store(server)
        #expect(await connected(store))
        #expect(await store.settle("k", admitted: 1, replica: "a", policy: policy()) != nil)
        let redis = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
        #expect(try await redis.send("SCRIPT", "FLUSH").isOK)
        #expect(await store.settle("k", admitted: 1, replica: "a", policy: policy())?.replicas == 1)
        #expect(await store.announce(replica: "a", policy: policy()) != nil)
    }

    @Test func failuresAreCountedAndTheOutageLoggedOnce() async throws {
        var server = try RedisTestServer()
        defer { server.stop() }
        let (facts, lines) = (GatewayFacts(), LogLines())
        let store = store(server, recorder: facts, logger: lines.logger)
        #expect(await connected(store))
        let (failedBefore, linesBefore) = (facts.rateLimitCommandsFailed, lines.all.count)
        server.stop()
        for _ in 0..<5 {
            #expect(await store.settle("k", admitted: 1, replica: "a", policy: policy()) == nil)
            #expect(await store.announce(replica: "a", policy: policy()) == nil)
        }
        #expect(facts.rateLimitCommandsFailed - failedBefore == 10)
        let outage = lines.all.dropFirst(linesBefore)
        #expect(outage.map(\.message) == ["rate limit settlements with redis fail; each replica limits on its own until they succeed"])
        #expect(outage.first?.level == .warning)
        server = try server.restarted()
        #expect(await connected(store))
        let after = lines.all.dropFirst(linesBefore)
        #expect(after.map(\.message).last == "rate limit settlements with redis succeed again; limits are shared by the fleet")
        #expect(after.count == 2)
    }

    /// Three replicas' limiters on one Redis, each sent a request every 2 ms for
    /// 2 s, admit together what one bucket sent the same does alone.
    @Test func threeReplicasTogetherAdmitWhatOneBucketWould() async throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let fleet = (0..<3).map { index in
            FleetRateLimiter(settings: .init(requestsPerSecond: 50, burst: 50, partition: "global"), store: store(server),
                             replica: "replica-\(index)")
        }
        #expect(await connected(store(server)))
        for limiter in fleet { limiter.start(executor: nil, sleep: { try await Task.sleep(for: $0) }) }
        try await Task.sleep(for: .milliseconds(300))  // every replica announced itself
        let created = ContinuousClock.now
        let single = RateLimiter(requestsPerSecond: 50, burst: 50)
        let rounds = await withTaskGroup(of: Round.self, returning: [Round].self) { group in
            for limiter in fleet {
                group.addTask {
                    var round = Round()
                    let end = ContinuousClock.now + .seconds(2)
                    while ContinuousClock.now < end {
                        let before = ContinuousClock.now
                        if single.take("").allowed { round.alone += 1 }
                        round.took(from: before, to: .now)
                        if limiter.take("").allowed { round.admitted += 1 }
                        try? await Task.sleep(for: .milliseconds(2))
                    }
                    return round
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let admitted = rounds.map(\.admitted).reduce(0, +)
        let alone = rounds.map(\.alone).reduce(0, +)
        let ratio = Double(admitted) / Double(alone)
        // Unshared, three replicas would admit 3×: at most 1.2× shows the bucket is shared. Below, this
        // runs on wall and Redis time, and a loaded machine delays the settlement rounds, so the fleet
        // admits less for a while (0.86 and 0.77 seen with every suite side by side under a sanitizer):
        // 0.6 only catches a fleet held far below its rate. The ±10 % bound is checked on a manual clock
        // (`FleetRateLimiterTests`) and, with real processes, end to end.
        #expect(ratio > 0.6 && ratio < 1.2, "the fleet admitted \(admitted), one bucket \(alone)")
        // The single bucket was drained: it gave its burst and every token that dripped in between the
        // first take and the last (a bucket full before the first take keeps no more than its burst).
        // Less 5 tokens (100 ms): the clock is read around a take, and a loaded machine (every suite
        // side by side under a sanitizer) may stop a task between the two (with 2 tokens to spare, a run came 1 short).
        let (first, last) = (rounds.compactMap(\.first).min()!, rounds.compactMap(\.last).max()!)
        let fewest = 50 + 50 * ((last - first) / .seconds(1)) - 5, most = 50 + 50 * ((last - created) / .seconds(1)) + 2
        #expect(Double(alone) >= fewest && Double(alone) <= most, "one bucket gave \(alone); drained, it gives \(fewest)...\(most)")
    }

    /// What one task saw: admissions by its fleet replica and by the single bucket, and when it
    /// took from the single bucket (the clock read just before its first take and just after its last).
    private struct Round: Sendable {
        var admitted = 0, alone = 0
        private(set) var first: ContinuousClock.Instant?
        private(set) var last: ContinuousClock.Instant?

        mutating func took(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) {
            if first == nil { first = start }
            last = end
        }
    }
}
