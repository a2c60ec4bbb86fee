/// Counters of the response cache since start, for metrics
/// (`gqlgate_cache_hits_total`, `gqlgate_cache_misses_total`, `gqlgate_cache_bytes`).
package struct ResponseCacheStatistics: Sendable, Equatable {
    /// Answers served from the cache (stale ones included).
    package var hits = 0
    /// Answers fetched and stored.
    package var misses = 0
    /// Answers fetched and not stored (errors, `no-store`, client `no-cache`, ...).
    package var bypasses = 0
    /// Entries dropped to stay within `max_bytes`.
    package var evictions = 0
    /// Entries removed by mutations.
    package var invalidations = 0
    /// Look-ups, stores and purges a shared store could not carry out
    /// (unreachable, too slow, an unexpected reply); a query whose look-up
    /// failed was answered as a bypass. A stored answer that cannot be read
    /// is not an error: it counts as a miss and the next store replaces it.
    package var storeErrors = 0
    /// Entries held now (a shared store does not count them: 0).
    package var entries = 0
    /// Bytes held now, as `CachedAnswer.cost` counts them (a shared store: 0).
    package var bytes = 0

    package init() {}
}

