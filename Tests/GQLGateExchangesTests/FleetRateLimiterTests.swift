@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

/// A shared store in memory on a manual clock, with the semantics of the
/// Redis one: a theoretical arrival time per bucket and the replicas seen.
final class MemorySharedStore: SharedRateLimitStore {
    private struct Bucket {
        var arrival: UInt64
        var replicas: [String: UInt64] = [:]
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var running: [String: UInt64] = [:]
        var down = false
        var settled: [(key: String, admitted: Int, replica: String)] = []
    }

    private let clock: ManualClock
    private let state = Lock(State())

    init(clock: ManualClock) {
        self.clock = clock
    }

    /// Whether it answers nothing (as Redis stopped).
    var down: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    /// Every settlement it took, in order.
    var settled: [(key: String, admitted: Int, replica: String)] { state.withLock { $0.settled } }

    func settle(_ key: String, admitted: Int, replica: String, policy: SharedRateLimitPolicy) async -> SharedBucket? {
        let now = clock.monotonicNanoseconds
        return state.withLock { state in
            guard !state.down else { return nil }
            state.settled.append((key, admitted, replica))
            var bucket = state.buckets[key] ?? Bucket(arrival: now)
            bucket.arrival = max(bucket.arrival, now) + UInt64(admitted) * policy.interval
            bucket.replicas = bucket.replicas.filter { $0.key == replica || now - $0.value < policy.activeFor.nanoseconds }
            bucket.replicas[replica] = now
            state.buckets[key] = bucket
            return SharedBucket(ahead: bucket.arrival - now, replicas: bucket.replicas.count)
        }
    }

    func announce(replica: String, policy: SharedRateLimitPolicy) async -> Int? {
        let now = clock.monotonicNanoseconds
        return state.withLock { state in
            guard !state.down else { return nil }
            state.running[replica] = now
            state.running = state.running.filter { now - $0.value < policy.activeFor.nanoseconds }
            return state.running.count
        }
    }
}

@Suite struct FleetRateLimiterTests {
    let manual = ManualClock()

    private func limiter(_ store: MemorySharedStore, replica: String, rate: Double = 50, burst: Int = 50,
                         facts: RecordedFacts? = nil) -> FleetRateLimiter {
        FleetRateLimiter(settings: .init(requestsPerSecond: rate, burst: burst, partition: "global"), store: store, replica: replica,
                         clock: manual.clock, recorder: facts)
    }

    /// How many of `count` requests `limiter` lets through now.
    private func admitted(_ limiter: FleetRateLimiter, _ count: Int, key: String = "") -> Int {
        (0..<count).filter { _ in limiter.take(key).allowed }.count
    }

    @Test func aKeyNotSettledYetStartsWithItsShareOfTheBurst() async {
        let store = MemorySharedStore(clock: manual)
        let fleet = ["a", "b", "c"].map { limiter(store, replica: $0) }
        for replica in fleet { await replica.settle() }
        await fleet[0].settle()  // a has heard of b and c now
        #expect(admitted(fleet[0], 50) == 16)
        // Before any announcement a replica is alone: the whole burst.
        #expect(admitted(limiter(MemorySharedStore(clock: manual), replica: "d"), 60) == 50)
    }

    @Test func aSettlementLeavesEachReplicaItsShareOfWhatTheFleetHasLeftAndOvershootIsPaidBack() async {
        let store = MemorySharedStore(clock: manual)
        let fleet = ["a", "b", "c"].map { limiter(store, replica: $0) }
        for replica in fleet { await replica.settle() }
        for replica in fleet { await replica.settle() }
        #expect(fleet.map { admitted($0, 20) } == [16, 16, 16])
        for replica in fleet { await replica.settle() }
        #expect(store.settled.map(\.admitted) == [16, 16, 16])
        // Each took its third of what was left when it settled: a did not know yet what b and c let through.
        #expect(fleet.map { admitted($0, 20) } == [11, 6, 0])
        for replica in fleet { await replica.settle() }
        // 65 let through of a burst of 50: nothing more until the 15 over are paid back (300 ms at 50/s).
        manual.advance(by: .milliseconds(200))
        #expect(fleet.map { admitted($0, 20) }.reduce(0, +) == 0)
        // 400 ms bring 20 tokens, 15 of them the debt.
        manual.advance(by: .milliseconds(200))
        #expect(fleet.map { admitted($0, 20) }.reduce(0, +) == 5)
    }

    @Test func aReplicaAloneOnAKeyGetsTheWholeBudgetOnceItsSettlementsTellIt() async {
        let store = MemorySharedStore(clock: manual)
        let (a, b) = (limiter(store, replica: "a"), limiter(store, replica: "b"))
        await a.settle()
        await b.settle()
        await a.settle()
        #expect(admitted(a, 50, key: "sticky") == 25)
        await a.settle()  // the first settlement still assumes both replicas take from the key
        #expect(admitted(a, 50, key: "sticky") == 12)
        await a.settle()  // the second knows only a does: all that is left
        #expect(admitted(a, 50, key: "sticky") == 13)
    }

    @Test func aKeyIdleForLongerThanActiveForIsSharedAgainBeforeItsNextBurst() async {
        let store = MemorySharedStore(clock: manual)
        let (a, b) = (limiter(store, replica: "a"), limiter(store, replica: "b"))
        for _ in 0..<3 {
            await a.settle()
            await b.settle()
        }
        // Each replica once had the key alone: each settlement told it it was the only one.
        #expect(admitted(a, 1, key: "k") == 1)
        await a.settle()
        await a.settle()
        manual.advance(by: .seconds(2))
        await b.settle()
        #expect(admitted(b, 1, key: "k") == 1)
        await b.settle()
        await b.settle()
        manual.advance(by: .seconds(2))
        await a.settle()
        await b.settle()
        // Both idle on the key for 2 s, both full again: a flood through both at once takes one
        // burst between them, not a burst each.
        #expect(admitted(a, 50, key: "k") + admitted(b, 50, key: "k") == 50)
    }

    @Test(arguments: [1, 3, 10])
    func aSaturatedFleetAdmitsWhatOneBucketWouldWithinTenPercent(replicas: Int) async {
        let store = MemorySharedStore(clock: manual)
        let fleet = (0..<replicas).map { limiter(store, replica: "r\($0)") }
        for replica in fleet { await replica.settle() }
        for replica in fleet { await replica.settle() }
        let single = RateLimiter(requestsPerSecond: 50, burst: 50, clock: manual.clock)
        var (fleetAdmitted, singleAdmitted) = (0, 0)
        // 5 s in steps of 2 ms, each replica sent a request every step (500/s each); each
        // replica settles every 100 ms, at its own phase.
        for step in 1...2_500 {
            manual.advance(by: .milliseconds(2))
            for (index, replica) in fleet.enumerated() {
                if replica.take("").allowed { fleetAdmitted += 1 }
                if (step + index * 50 / replicas) % 50 == 0 { await replica.settle() }
            }
            if single.take("").allowed { singleAdmitted += 1 }
        }
        #expect((299...300).contains(singleAdmitted))
        let ratio = Double(fleetAdmitted) / Double(singleAdmitted)
        #expect(ratio > 0.9 && ratio < 1.1, "\(replicas) replicas admitted \(fleetAdmitted), one bucket \(singleAdmitted)")
    }

    @Test func whatReplicasLetThroughBeforeTheyKnewOfEachOtherIsPaidBack() async {
        let store = MemorySharedStore(clock: manual)
        let (a, b) = (limiter(store, replica: "a"), limiter(store, replica: "b"))
        // Neither has announced itself: each thinks it is alone and lets a whole burst through.
        #expect(admitted(a, 60) == 50)
        #expect(admitted(b, 60) == 50)
        var total = 100
        for step in 1...1_500 {
            manual.advance(by: .milliseconds(2))
            total += admitted(a, 1) + admitted(b, 1)
            if step % 50 == 0 { await a.settle() }
            if step % 50 == 25 { await b.settle() }
            if step == 450 { #expect(total < 120, "the 50 over the burst are paid back first (1 s at 50/s): \(total)") }
        }
        // One bucket over 3 s: 50 + 150.
        #expect(abs(total - 200) <= 20, "admitted \(total)")
    }

    @Test func whileTheStoreIsDownEachReplicaHasABucketOfItsOwnAndSettlementsAreCounted() async {
        let store = MemorySharedStore(clock: manual)
        let facts = RecordedFacts()
        let (a, b) = (limiter(store, replica: "a", facts: facts), limiter(store, replica: "b"))
        for _ in 0..<2 {
            await a.settle()
            await b.settle()
        }
        #expect(admitted(a, 50) == 25)
        await a.settle()
        #expect(admitted(a, 50) == 12)  // its half of the 25 left
        store.down = true
        await a.settle()  // fails: a's buckets are its own now, refilling at the whole rate up to the whole burst
        manual.advance(by: .seconds(1))
        #expect(admitted(a, 60) == 50)
        #expect(admitted(a, 60, key: "other") == 50)
        store.down = false
        await b.settle()
        await a.settle()
        #expect(admitted(a, 60, key: "third") == 25, "shared again: a new key starts with half a burst")
        let outcomes = facts.gatewayFacts.compactMap { fact -> Bool? in
            if case .rateLimitSettled(let succeeded) = fact { succeeded } else { nil }
        }
        #expect(outcomes == [true, false, true, true])
    }

    @Test func keysAreStoredAsDigestsPerPartition() {
        let digest = FleetRateLimiter.digest("secret-client-key", partition: "key")
        #expect(digest.count == 32 && digest.allSatisfy(\.isHexDigit))
        #expect(!digest.contains("secret"))
        #expect(digest != FleetRateLimiter.digest("secret-client-key", partition: "header:x-tenant"))
        #expect(digest == FleetRateLimiter.digest("secret-client-key", partition: "key"))
    }

    @Test func theStageRefusesWithTheFleetsPolicy() async throws {
        let store = MemorySharedStore(clock: manual)
        let stage = FleetRateLimitExchange(
            limiter: FleetRateLimiter(settings: .init(requestsPerSecond: 2, burst: 4, partition: "global"), store: store, replica: "a",
                                      clock: manual.clock),
            partition: .global)
        var allowed = 0
        for _ in 0..<5 {
            var operation = operation("{ a }")
            do {
                _ = try stage.decide(&operation)
                allowed += 1
            } catch let error as GatewayError {
                #expect(error.status == 429)
                #expect(error.code == "RATE_LIMITED")
                #expect(error.headers["Retry-After"] == "1")
                #expect(error.headers["RateLimit-Policy"] == "\"default\";q=4;w=2")
                #expect(error.headers["RateLimit"] == "\"default\";r=0;t=2")
            }
        }
        #expect(allowed == 4)
    }
}
