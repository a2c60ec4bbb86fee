import GQLGatePipeline

/// The ticket of a hit from a cache whose fresh answers are in memory: it
/// holds while the store removed or replaced no answer since the hit (then
/// the answer under `key` is still the one served), and until the answer's
/// TTL ends on the stage's clock.
final class MemoryHitTicket: CacheHitTicket {
    private let memory: any InlineResponseCache
    private let clock: CacheClock
    private let key: RequestKey
    private let changeCount: UInt64
    private let storedAt: Duration
    private let ttl: Duration

    init(memory: any InlineResponseCache, clock: CacheClock, key: RequestKey, changeCount: UInt64, answer: CachedAnswer) {
        self.memory = memory
        self.clock = clock
        self.key = key
        self.changeCount = changeCount
        storedAt = answer.storedAt
        ttl = answer.ttl
    }

    func renewedAge() -> Duration? {
        let age = clock.now() - storedAt
        guard age < ttl, memory.countHit(for: key, unchangedSince: changeCount) else { return nil }
        return age
    }
}
