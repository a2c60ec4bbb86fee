package import GQLGatePipeline

/// Where `CacheExchange` keeps answers: `MemoryResponseCache` in this
/// process, or a shared store such as Redis. A store that cannot be reached
/// never fails a request: its look-up says `.unavailable` and the query goes
/// upstream without being stored.
package protocol ResponseCacheStore: Sendable {
    /// The answer for `key` at time `now` (the exchange's `CacheClock`); may
    /// claim the one background refresh of a stale answer.
    func lookup(_ key: RequestKey, now: Duration) async -> ResponseCacheLookup
    /// Stores `answer` under `key`, replacing what was there; false when the
    /// store could not be reached (the answer is then served as not stored).
    func store(_ answer: CachedAnswer, for key: RequestKey) async -> Bool
    /// Lets another caller refresh `key` after a refresh failed.
    func refreshFailed(_ key: RequestKey) async
    /// Purges what `purge` selects (see `CachePurge`), at time `now` (the
    /// store's clock: a soft purge makes answers stale as of now). Returns how many.
    func purge(_ purge: CachePurge, now: Duration) async -> Int
    /// Counts how a query answer was served.
    func record(_ outcome: CacheOutcome)
    /// The counters now.
    var statistics: ResponseCacheStatistics { get }
    /// The time answers are stamped and aged with: the process's
    /// `.monotonic` clock by default; a store shared between processes
    /// needs `.wall`, so that they agree on an answer's age.
    var clock: CacheClock { get }
}

extension ResponseCacheStore {
    package var clock: CacheClock { .monotonic }

    /// Removes every answer holding one of `entities`, and every answer
    /// holding one of `types` whose root arguments do not disagree with
    /// `arguments`. Returns how many.
    @discardableResult
    package func purge(entities: Set<String>, types: Set<String>, arguments: [String: Set<String>]) async -> Int {
        await purge(CachePurge(entities: entities, types: types, arguments: arguments), now: clock.now())
    }
}

/// Which stored answers a purge removes (or, `soft`, marks stale): every
/// answer holding one of `entities`, and every answer holding one of `types`
/// whose root arguments do not disagree with `arguments` (see
/// `CacheTags.disagrees(with:)`). Answers also carry the tags
/// `CacheTags.operation(_:)` and `CacheTags.everyAnswer`, so that a purge by
/// operation name or of everything is a purge of entities.
package struct CachePurge: Sendable, Equatable {
    package var entities: Set<String>
    package var types: Set<String>
    package var arguments: [String: Set<String>]
    /// Mark the answers stale instead of removing them: they are served within
    /// `cache.stale_while_revalidate` while one refresh runs (without a stale
    /// window, that is the same as removing them).
    package var soft: Bool

    package init(entities: Set<String> = [], types: Set<String> = [], arguments: [String: Set<String>] = [:], soft: Bool = false) {
        self.entities = entities
        self.types = types
        self.arguments = arguments
        self.soft = soft
    }
}

/// What a look-up found.
package enum ResponseCacheLookup: Sendable {
    /// Fresh: serve it.
    case fresh(CachedAnswer, age: Duration)
    /// Expired but within `stale_while_revalidate`: serve it; `refresh` is
    /// true for the one caller that should fetch a new answer.
    case stale(CachedAnswer, age: Duration, refresh: Bool)
    /// Expired but within `stale_if_error`: fetch, and serve it if that fails.
    case expired(CachedAnswer, age: Duration)
    case miss
    /// The store could not answer (unreachable, slow, or replying something
    /// unexpected): fetch, do not store (`X-Cache: BYPASS`).
    case unavailable
}

/// A store whose fresh answers are in this process's memory, so that
/// `CacheExchange` can serve them on the server thread without a task:
/// `MemoryResponseCache`, and the memory tier of a tiered store. A class, so
/// that the stage holds it as one reference (an existential of any type is
/// copied and destroyed through its type's value witnesses).
package protocol InlineResponseCache: AnyObject, Sendable {
    /// The answer for `key` when it is fresh at time `now`, counted as a hit,
    /// with how many answers the store had removed or replaced by then;
    /// nil for anything else (left for the store's `lookup`).
    func freshHit(for key: RequestKey, now: Duration) -> (answer: CachedAnswer, age: Duration, changeCount: UInt64)?
    /// Counts a hit on `key`'s answer, as `freshHit` does (it becomes the
    /// most recently used), when the store has removed or replaced no answer
    /// since its count was `changeCount`; false (nothing counted) otherwise.
    func countHit(for key: RequestKey, unchangedSince changeCount: UInt64) -> Bool
}
