/// A fresh answer a cache stage served from this process's memory, as the
/// gateway's endpoint may serve it again to a request with the same bytes
/// (`GatewayConfig`'s hit replay): while the store has removed or replaced
/// no answer since, and this one is still fresh.
package struct CacheHitTicket: Sendable {
    /// The store's side of the promise.
    package let renewal: any CacheHitRenewal
    /// The store's count of removed and replaced answers when the hit was served.
    package let changeCount: UInt64
    /// When the answer was stored, on the stage's cache clock.
    package let storedAt: Duration
    /// How long the answer was fresh for when the hit was served.
    package let ttl: Duration

    package init(renewal: any CacheHitRenewal, changeCount: UInt64, storedAt: Duration, ttl: Duration) {
        self.renewal = renewal
        self.changeCount = changeCount
        self.storedAt = storedAt
        self.ttl = ttl
    }

    /// The answer's age now, its hit counted by the store, while the ticket
    /// holds; nil (nothing counted) once it does not.
    package func renewedAge() -> Duration? {
        renewal.renew(self)
    }
}

/// What a cache keeping answers in memory does for a `CacheHitTicket`.
package protocol CacheHitRenewal: AnyObject, Sendable {
    /// `ticket`'s answer's age now, the hit counted as the store counts any
    /// hit, when the store removed or replaced nothing since the ticket's
    /// hit and the answer is still fresh; nil (nothing counted) otherwise.
    func renew(_ ticket: CacheHitTicket) -> Duration?
}
