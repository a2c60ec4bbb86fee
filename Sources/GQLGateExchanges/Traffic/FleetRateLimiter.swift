@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// `clients.rate_limit.store: redis`: token buckets whose budget is the
/// fleet's, not each replica's. Requests take tokens from a bucket of this
/// replica's (`take`, on the server thread, never waiting for Redis); every
/// `settleEvery` a background round settles each key taken from since the
/// last one with the shared store: it adds what this replica let through to
/// the fleet's bucket of the key and reads back how full that bucket is and
/// how many replicas take from it. The local bucket then holds this
/// replica's share of what the fleet has left (what is left ÷ replicas, less
/// what it let through since it asked) and refills at its share of the rate.
///
/// The fleet's bucket records every admission, so what replicas let
/// through between settlements beyond one bucket's budget (each decided
/// from a figure that did not hold the others' latest admissions) is a
/// debt: the bucket stays empty for the next settlements until it is paid.
///
/// A key not settled yet starts with its share of a full bucket, the share
/// being one over the replicas running (`SharedRateLimitStore.announce`);
/// so does a key this replica has not settled for `activeFor`.
/// When the store cannot be reached, a bucket whose settlement failed is
/// this replica's alone (the full rate and burst, as with `store: memory`)
/// until a settlement succeeds again.
package final class FleetRateLimiter: Sendable {
    package struct Settings: Sendable {
        /// How fast the fleet's bucket refills (> 0).
        package var requestsPerSecond: Double
        /// How many tokens the fleet's full bucket holds (> 0).
        package var burst: Int
        /// What the keys partition (`key`, `global`, `header:x-tenant`): buckets of
        /// different partitions are different buckets in the store.
        package var partition: String
        /// How often this replica settles the keys it took from.
        package var settleEvery: Duration = .milliseconds(100)
        /// How long a replica counts as taking from a bucket (or as running) after it last settled it.
        package var activeFor: Duration = .seconds(1)
        /// The most the keys and buckets may take together.
        package var maxTableBytes = 8 << 20

        package init(requestsPerSecond: Double, burst: Int, partition: String) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = burst
            self.partition = partition
        }
    }

    /// This replica's part of one key's budget.
    struct Bucket {
        /// Tokens it holds; below 0 while the fleet is in debt.
        var tokens: Double
        /// When `tokens` was last brought up to date (monotonic nanoseconds).
        var updated: UInt64
        /// The part of the fleet's rate and burst this replica has: 1 ÷ the replicas taking from the key.
        var share: Double
        /// Requests let through since the last settlement was sent.
        var unsettled = 0
        /// Taken from since the last round began: the next round settles it.
        var active = false
        /// A settlement of it is on its way.
        var settling = false
        /// Whether a settlement of it succeeded already (until then the share is at most 1 ÷ the replicas running).
        var settled = false
        /// When its last settlement succeeded (monotonic nanoseconds).
        var settledAt: UInt64 = 0
    }

    private struct State {
        var buckets: CostBoundedLRU<String, Bucket>
        /// The keys taken from since the last round began (a key may be listed twice: `Bucket.active` tells).
        var active: [String] = []
        /// The replicas running, as the last announcement found (1 until one succeeded).
        var fleetReplicas = 1
        /// Whether the last announcement reached the store: new buckets then start with their share.
        var shared = true
    }

    /// Tokens the fleet's full bucket holds.
    package let burst: Int
    /// Nanoseconds one token takes to come back.
    let interval: UInt64
    /// `burst × interval`.
    private let capacity: UInt64
    private let settings: Settings
    private let policy: SharedRateLimitPolicy
    /// `activeFor` in nanoseconds: a key not settled for that long is shared anew.
    private let idleAfter: UInt64
    /// Who this replica is in the store.
    package let replica: String
    private let state: Lock<State>
    private let store: Lock<any SharedRateLimitStore>
    private let clock: GatewayClock
    private let recorder: (any FactRecorder)?

    /// Bytes a bucket costs besides its key's.
    static let bucketOverhead = 128

    /// This process's name in the stores: random, made once per process, so
    /// that a reload does not count the replica twice.
    package static let processReplica: String = {
        var generator = SystemRandomNumberGenerator()
        return (0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) }.lowercaseHex
    }()

    /// - Parameters:
    ///   - store: where the fleet's buckets are (`use` replaces it).
    ///   - replica: this replica's name in the store.
    ///   - recorder: told of each key's settlement (`GatewayFact.rateLimitSettled`).
    package init(settings: Settings, store: any SharedRateLimitStore, replica: String = FleetRateLimiter.processReplica,
                 clock: GatewayClock = .system, recorder: (any FactRecorder)? = nil) {
        precondition(settings.requestsPerSecond > 0 && settings.burst > 0)
        self.settings = settings
        burst = settings.burst
        // Bounded as in `RateLimiter`, so that no sum of instants overflows.
        let limit: UInt64 = 1 << 60
        interval = UInt64(min(max(1, (1e9 / settings.requestsPerSecond).rounded()), Double(limit)))
        let (product, overflow) = UInt64(settings.burst).multipliedReportingOverflow(by: interval)
        capacity = overflow ? limit : min(product, limit)
        policy = SharedRateLimitPolicy(interval: interval, capacity: capacity, activeFor: settings.activeFor)
        idleAfter = settings.activeFor.nanoseconds
        self.replica = replica
        state = Lock(State(buckets: CostBoundedLRU(capacity: settings.maxTableBytes)))
        self.store = Lock(store)
        self.clock = clock
        self.recorder = recorder
    }

    /// The seconds the fleet's bucket takes to fill up from empty, at least 1: the window of `RateLimit-Policy`.
    package var windowSeconds: UInt64 { max(1, (capacity + 999_999_999) / 1_000_000_000) }

    /// Buckets held.
    package var count: Int { state.withLock { $0.buckets.count } }

    /// Settles with `store` from the next round on (a reload that keeps the limiter hands it the new pipeline's).
    package func use(_ store: any SharedRateLimitStore) {
        self.store.withLock { $0 = store }
    }

    // MARK: - Requests

    /// Takes `tokens` from this replica's bucket of `key`, without waiting
    /// (at most a full bucket: an operation that costs more needs the whole bucket).
    package func take(_ key: String, tokens: Int = 1) -> RateLimiter.Decision {
        let now = clock.monotonicNanoseconds()
        return state.withLock { state in
            var decision = RateLimiter.Decision(allowed: false, remaining: 0, retryAfter: .zero, reset: .zero)
            var listed = false
            let (shared, fleetReplicas) = (state.shared, state.fleetReplicas)
            let known = state.buckets.updateAsNewest(key) { bucket in
                if bucket.settled, now &- bucket.settledAt >= self.idleAfter {
                    self.forgetShare(of: &bucket, share: Self.newShare(shared: shared, fleetReplicas: fleetReplicas), now: now)
                }
                decision = self.take(Double(tokens), from: &bucket, now: now)
                listed = bucket.active
                bucket.active = true
            }
            if !known {
                let share = Self.newShare(shared: shared, fleetReplicas: fleetReplicas)
                var bucket = Bucket(tokens: Self.ceiling(share: share, burst: burst), updated: now, share: share)
                decision = take(Double(tokens), from: &bucket, now: now)
                bucket.active = true
                dropIdleBuckets(from: &state.buckets, now: now)
                _ = state.buckets.insert(bucket, for: key, cost: key.utf8.count + Self.bucketOverhead)
            }
            if !listed { state.active.append(key) }
            return decision
        }
    }

    private func take(_ wanted: Double, from bucket: inout Bucket, now: UInt64) -> RateLimiter.Decision {
        refill(&bucket, now: now)
        let perNanosecond = bucket.share / Double(interval)
        let ceiling = Self.ceiling(share: bucket.share, burst: burst)
        let tokens = min(max(1, wanted), ceiling)
        // A hair under counts as enough: shares are fractions, and their sums round.
        guard bucket.tokens >= tokens - 1e-9 else {
            return RateLimiter.Decision(allowed: false, remaining: 0, retryAfter: Self.duration((tokens - bucket.tokens) / perNanosecond),
                                        reset: Self.duration((ceiling - bucket.tokens) / perNanosecond))
        }
        bucket.tokens -= tokens
        bucket.unsettled += Int(tokens.rounded(.up))
        // What the fleet has left, as this replica's share of it says.
        let remaining = max(0, min(Double(burst), (bucket.tokens / bucket.share).rounded(.down)))
        return RateLimiter.Decision(allowed: true, remaining: Int(remaining), retryAfter: .zero,
                                    reset: Self.duration((ceiling - bucket.tokens) / perNanosecond))
    }

    /// The share of a key new to this replica (or idle on it): one over the
    /// replicas running while the store answers, else the whole bucket.
    private static func newShare(shared: Bool, fleetReplicas: Int) -> Double {
        shared ? 1 / Double(fleetReplicas) : 1
    }

    /// A key this replica has not settled for `activeFor` is taken from as a
    /// new key is: other replicas may have taken its whole budget since, so
    /// its share is one over the replicas running again (not the share of its
    /// last settlement, which a replica alone on it had whole), until its next
    /// settlement says who takes from it.
    private func forgetShare(of bucket: inout Bucket, share: Double, now: UInt64) {
        refill(&bucket, now: now)
        bucket.settled = false
        bucket.share = share
        bucket.tokens = min(bucket.tokens, Self.ceiling(share: bucket.share, burst: burst))
    }

    /// Adds what the bucket's share of the rate brought back since it was last brought up to date.
    private func refill(_ bucket: inout Bucket, now: UInt64) {
        let ceiling = Self.ceiling(share: bucket.share, burst: burst)
        if now > bucket.updated {
            bucket.tokens += Double(now - bucket.updated) * bucket.share / Double(interval)
            bucket.updated = now
        }
        bucket.tokens = min(ceiling, bucket.tokens)
    }

    /// The most tokens a bucket with `share` holds: its share of the burst, at least 1 (so that a request can pass at all).
    private static func ceiling(share: Double, burst: Int) -> Double {
        max(1, Double(burst) * share)
    }

    private static func duration(_ nanoseconds: Double) -> Duration {
        .nanoseconds(Int64(min(max(0, nanoseconds.rounded(.up)), 1e18)))
    }

    /// Drops up to a few of the least recently used buckets that are full
    /// again and have nothing to settle.
    private func dropIdleBuckets(from table: inout CostBoundedLRU<String, Bucket>, now: UInt64) {
        for _ in 0..<4 {
            guard var oldest = table.oldestEntry, !oldest.value.active, !oldest.value.settling else { return }
            refill(&oldest.value, now: now)
            guard oldest.value.tokens >= Self.ceiling(share: oldest.value.share, burst: burst) else { return }
            table.removeValue(for: oldest.key)
        }
    }

    // MARK: - Settling

    /// Settles with the store every `settleEvery`, on `executor`, until the limiter is released.
    /// - Parameter sleep: how the rounds wait (a gateway loop's timers).
    package func start(executor: (any TaskExecutor)?, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        let every = settings.settleEvery
        Task(executorPreference: executor) { [weak self] in
            while await Self.round(self) {
                try? await sleep(every)
            }
        }
    }

    /// One round, when the limiter is still there (held only while the round runs).
    private static func round(_ limiter: FleetRateLimiter?) async -> Bool {
        guard let limiter else { return false }
        await limiter.settle()
        return true
    }

    /// One round: announces this replica, and settles every key taken from
    /// since the last round, all at once (the commands share the connection).
    package func settle() async {
        let store = self.store.withLock { $0 }
        let batch = state.withLock { state -> [(key: String, admitted: Int)] in
            let keys = state.active
            state.active.removeAll(keepingCapacity: true)
            var batch: [(key: String, admitted: Int)] = []
            for key in keys {
                _ = state.buckets.update(key) { bucket in
                    guard bucket.active else { return }
                    batch.append((key, bucket.unsettled))
                    bucket.active = false
                    bucket.settling = true
                    bucket.unsettled = 0
                }
            }
            return batch
        }
        let (replica, policy, partition) = (self.replica, self.policy, settings.partition)
        async let running = store.announce(replica: replica, policy: policy)
        let results = await withTaskGroup(of: (Int, SharedBucket?).self, returning: [SharedBucket?].self) { group in
            for (index, entry) in batch.enumerated() {
                group.addTask {
                    (index, await store.settle(Self.digest(entry.key, partition: partition), admitted: entry.admitted,
                                               replica: replica, policy: policy))
                }
            }
            var results = [SharedBucket?](repeating: nil, count: batch.count)
            for await (index, result) in group { results[index] = result }
            return results
        }
        let fleet = await running
        let now = clock.monotonicNanoseconds()
        state.withLock { state in
            if let fleet { state.fleetReplicas = max(1, fleet) }
            state.shared = fleet != nil
            let fleetReplicas = state.fleetReplicas
            for (entry, result) in zip(batch, results) {
                _ = state.buckets.update(entry.key) { self.settled(&$0, with: result, fleetReplicas: fleetReplicas, now: now) }
            }
        }
        for result in results { recorder?.record(.rateLimitSettled(succeeded: result != nil)) }
    }

    /// Takes in a settlement's answer: this replica's share of what the fleet
    /// has left, less what it let through since the settlement was sent; or,
    /// with none, a bucket of its own until one succeeds again.
    private func settled(_ bucket: inout Bucket, with result: SharedBucket?, fleetReplicas: Int, now: UInt64) {
        bucket.settling = false
        guard let result else {
            refill(&bucket, now: now)
            bucket.share = 1
            return
        }
        // Until its first settlement a replica cannot know the others take from the key too: it assumes all do.
        let replicas = bucket.settled ? result.replicas : max(result.replicas, fleetReplicas)
        bucket.settled = true
        bucket.settledAt = now
        bucket.share = 1 / Double(replicas)
        let left = (Double(capacity) - Double(result.ahead)) / Double(interval)
        bucket.tokens = min(Self.ceiling(share: bucket.share, burst: burst), left * bucket.share - Double(bucket.unsettled))
        bucket.updated = now
    }

    /// The name of `key`'s bucket in the store: the first 16 bytes of the
    /// SHA-256 of the partition and the key, in hex (client keys and
    /// addresses are not written to the store).
    package static func digest(_ key: String, partition: String) -> String {
        SHA256.hash(data: Array("\(partition)\n\(key)".utf8)).prefix(16).lowercaseHex
    }
}
