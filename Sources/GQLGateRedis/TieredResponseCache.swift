@_spi(GQLGateInternals) import GQLGateCore
package import GQLGateExchanges
@_spi(GQLGateInternals) package import GQLGatePipeline
import Synchronization

/// `cache.backend: tiered`: this process's memory in front of Redis. Fresh
/// answers in memory are served as with the memory cache (on the server
/// thread); a miss there reads Redis, and a fresh answer found there is kept
/// in memory until it expires; a miss in both goes upstream. Stores write
/// both tiers.
///
/// Coherent across the fleet: a purge (a mutation's entities, an operator's
/// purge) is applied to both tiers and published on Redis pub/sub
/// (`<prefix>invalidations`), and every other replica purges its memory tier
/// when the message arrives. A purge Redis did not take waits and is
/// published again (`InvalidationPublisher`). A replica whose subscription
/// was lost (it may have missed messages) drops its whole memory tier when
/// it subscribes again. An answer read from Redis is kept in memory only when
/// no purge reached this replica while it was read (it may be what the purge
/// removed). While Redis is unavailable the memory tier goes on alone.
package final class TieredResponseCache: ResponseCacheStore, InlineResponseCache {
    private let memory: MemoryResponseCache
    private let redis: RedisResponseCache
    private let publisher: InvalidationPublisher
    /// Tells this replica's messages from the others'.
    private let sender: String
    private let recorder: (any FactRecorder)?
    private let subscription: Lock<RedisSubscription?> = Lock(nil)
    /// Purges applied to the memory tier so far, whatever their source.
    private let memoryPurges = Atomic<UInt64>(0)

    /// - Parameters:
    ///   - channel: the pub/sub channel every replica sharing the keys uses (`<prefix>invalidations`).
    ///   - recorder: told of invalidations received and of memory tiers dropped.
    package init(memory: MemoryResponseCache, redis: RedisResponseCache, client: RedisClient, channel: String,
                recorder: (any FactRecorder)? = nil) {
        self.memory = memory
        self.redis = redis
        publisher = InvalidationPublisher(client: client, channel: channel, recorder: recorder)
        self.recorder = recorder
        sender = String(UInt64.random(in: .min ... .max), radix: 16) + String(UInt64.random(in: .min ... .max), radix: 16)
        let subscription = client.subscribe(channel, onMessage: { [weak self] payload in self?.received(payload) },
                                            onResubscribed: { [weak self] in self?.resubscribed() })
        self.subscription.withLock { $0 = subscription }
    }

    package func freshHit(for key: RequestKey, now: Duration) -> (answer: CachedAnswer, age: Duration, changeCount: UInt64)? {
        memory.freshHit(for: key, now: now)
    }

    package func countHit(for key: RequestKey, unchangedSince changeCount: UInt64) -> Bool {
        memory.countHit(for: key, unchangedSince: changeCount)
    }

    package func lookup(_ key: RequestKey, now: Duration) async -> ResponseCacheLookup {
        if case .fresh(let answer, let age) = memory.lookup(key, now: now) { return .fresh(answer, age: age) }
        let purges = memoryPurges.load(ordering: .acquiring)
        let found = await redis.lookup(key, now: now)
        if case .fresh(let answer, _) = found {
            _ = memory.store(answer, for: key, if: { memoryPurges.load(ordering: .acquiring) == purges })
        }
        return found
    }

    @discardableResult
    package func store(_ answer: CachedAnswer, for key: RequestKey) async -> Bool {
        memory.store(answer, for: key)
        _ = await redis.store(answer, for: key)
        return true
    }

    package func refreshFailed(_ key: RequestKey) async {
        memory.refreshFailed(key)
        await redis.refreshFailed(key)
    }

    @discardableResult
    package func purge(_ purge: CachePurge, now: Duration) async -> Int {
        memoryPurges.add(1, ordering: .releasing)
        let local = memory.purge(purge, now: now)
        let shared = await redis.purge(purge, now: now)
        // A miss that read Redis before its purge may have put the old answer in memory meanwhile.
        memoryPurges.add(1, ordering: .releasing)
        _ = memory.purge(purge, now: now)
        await publisher.publish(CacheInvalidationMessage(sender: sender, purge: purge))
        return max(local, shared)
    }

    package func record(_ outcome: CacheOutcome) {
        memory.record(outcome)
    }

    /// The memory tier's counters, with Redis' failures and invalidations added.
    package var statistics: ResponseCacheStatistics {
        var statistics = memory.statistics
        let shared = redis.statistics
        statistics.storeErrors += shared.storeErrors
        statistics.invalidations += shared.invalidations
        return statistics
    }

    package var clock: CacheClock { .wall }

    /// Another replica purged: so does this one's memory tier.
    private func received(_ payload: [UInt8]) {
        guard let message = CacheInvalidationMessage(decoding: payload), message.sender != sender else { return }
        memoryPurges.add(1, ordering: .releasing)
        memory.purge(message.purge, now: clock.now())
        recorder?.record(.cacheInvalidated(.peer))
    }

    /// The subscription was lost and is back: messages may have been missed.
    private func resubscribed() {
        memoryPurges.add(1, ordering: .releasing)
        memory.removeAll()
        recorder?.record(.cacheMemoryTierDropped)
    }
}
