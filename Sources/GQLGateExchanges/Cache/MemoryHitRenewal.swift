import GQLGatePipeline

/// Renews the `CacheHitTicket`s of a cache whose fresh answers are in
/// memory: a ticket holds while the store removed or replaced no answer
/// since its hit (then the ticket's answer is still the one stored), and
/// until the answer's TTL ends on the stage's clock.
final class MemoryHitRenewal: CacheHitRenewal {
    private let memory: any InlineResponseCache
    private let clock: CacheClock

    init(memory: any InlineResponseCache, clock: CacheClock) {
        self.memory = memory
        self.clock = clock
    }

    package func renew(_ ticket: CacheHitTicket) -> Duration? {
        let age = clock.now() - ticket.storedAt
        guard age < ticket.ttl, memory.countHit(unchangedSince: ticket.changeCount) else { return nil }
        return age
    }
}
