@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// The in-memory response cache: answers by `RequestKey`, bounded by
/// `maxBytes` (least recently used dropped first), with a tag index for
/// invalidation and the counters for metrics. Shared by every loop behind one
/// `Lock`, held for dictionary work only.
package final class MemoryResponseCache: ResponseCacheStore, InlineResponseCache {
    /// What a look-up found (never `.unavailable`).
    package typealias Lookup = ResponseCacheLookup

    private struct Entry: Sendable {
        var answer: CachedAnswer
        var refreshing = false
    }

    private struct State: Sendable {
        var entries: CostBoundedLRU<RequestKey, Entry>
        var index: [String: Set<RequestKey>] = [:]
        var statistics = ResponseCacheStatistics()
        /// Answers removed or replaced so far, for any reason (`CacheHitTicket`).
        var changeCount: UInt64 = 0
    }

    private let state: Lock<State>
    private let maxBytes: Int
    private let staleWhileRevalidate: Duration
    private let staleIfError: Duration
    /// Told the bytes held with each outcome counted (`GatewayFact.cacheBytesHeld`).
    private let recorder: (any FactRecorder)?

    /// - Parameters:
    ///   - maxBytes: `cache.max_bytes`.
    ///   - staleWhileRevalidate: `cache.stale_while_revalidate`.
    ///   - staleIfError: `cache.stale_if_error`.
    ///   - recorder: told the bytes held.
    package init(maxBytes: Int, staleWhileRevalidate: Duration = .zero, staleIfError: Duration = .zero,
                recorder: (any FactRecorder)? = nil) {
        state = Lock(State(entries: CostBoundedLRU(capacity: maxBytes)))
        self.maxBytes = maxBytes
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
        self.recorder = recorder
    }

    /// The answer for `key` at time `now`; entries past every window are dropped.
    package func lookup(_ key: RequestKey, now: Duration) -> Lookup {
        state.withLock { state in
            guard let entry = state.entries.value(for: key) else { return .miss }
            let age = now - entry.answer.storedAt
            let expiry = entry.answer.ttl
            if age < expiry { return .fresh(entry.answer, age: age) }
            if age < expiry + staleWhileRevalidate {
                let refresh = !entry.refreshing
                if refresh { state.entries.update(key) { $0.refreshing = true } }
                return .stale(entry.answer, age: age, refresh: refresh)
            }
            if age < expiry + staleIfError { return .expired(entry.answer, age: age) }
            Self.remove(key, from: &state)
            return .miss
        }
    }

    /// The answer for `key` when it is fresh at time `now`, counted as a hit;
    /// unlike `lookup`, an expired answer is left as it is (no refresh
    /// claimed, nothing dropped, nothing counted).
    package func freshHit(for key: RequestKey, now: Duration) -> (answer: CachedAnswer, age: Duration, changeCount: UInt64)? {
        let found: (answer: CachedAnswer, age: Duration, changeCount: UInt64, bytesHeld: Int)? = state.withLock { state in
            guard let entry = state.entries.value(for: key) else { return nil }
            let age = now - entry.answer.storedAt
            guard age < entry.answer.ttl else { return nil }
            state.statistics.hits += 1
            return (entry.answer, age, state.changeCount, state.entries.totalCost)
        }
        guard let found else { return nil }
        recorder?.record(.cacheBytesHeld(found.bytesHeld))
        return (found.answer, found.age, found.changeCount)
    }

    /// Counts a hit on `key`'s answer, as `freshHit` does (it becomes the
    /// most recently used), when no answer was removed or replaced since the
    /// store's change count was `changeCount`.
    package func countHit(for key: RequestKey, unchangedSince changeCount: UInt64) -> Bool {
        let bytesHeld: Int? = state.withLock { state in
            guard state.changeCount == changeCount, state.entries.markAsNewest(key) else { return nil }
            state.statistics.hits += 1
            return state.entries.totalCost
        }
        guard let bytesHeld else { return false }
        recorder?.record(.cacheBytesHeld(bytesHeld))
        return true
    }

    /// Stores `answer` under `key`, replacing what was there. Always true
    /// (an answer larger than `maxBytes` is taken and dropped at once).
    @discardableResult
    package func store(_ answer: CachedAnswer, for key: RequestKey) -> Bool {
        state.withLock { Self.insert(answer, for: key, into: &$0) }
        return true
    }

    /// Stores `answer` under `key` when `stillValid`, asked with the cache
    /// locked: so that no purge falls between the question and the store
    /// (a tiered cache keeps an answer read from Redis only if no purge came
    /// meanwhile). Whether it was stored.
    package func store(_ answer: CachedAnswer, for key: RequestKey, if stillValid: () -> Bool) -> Bool {
        state.withLock { state in
            guard stillValid() else { return false }
            Self.insert(answer, for: key, into: &state)
            return true
        }
    }

    private static func insert(_ answer: CachedAnswer, for key: RequestKey, into state: inout State) {
        remove(key, from: &state)
        let dropped = state.entries.insert(Entry(answer: answer), for: key, cost: answer.cost + key.byteCount)
        for (droppedKey, entry) in dropped {
            unindex(droppedKey, tags: entry.answer.tags, from: &state)
            state.statistics.evictions += 1
            state.changeCount &+= 1
        }
        if state.entries.peek(key) != nil {
            for tag in answer.tags.entities.union(answer.tags.types) { state.index[tag, default: []].insert(key) }
        }
    }

    /// Lets another caller refresh `key` after a refresh failed.
    package func refreshFailed(_ key: RequestKey) {
        state.withLock { _ = $0.entries.update(key) { $0.refreshing = false } }
    }

    /// Removes every answer holding one of `entities`, and every answer
    /// holding one of `types` whose root arguments do not disagree with
    /// `arguments` (see `CacheTags.disagrees(with:)`). Returns how many.
    @discardableResult
    package func purge(entities: Set<String>, types: Set<String>, arguments: [String: Set<String>]) -> Int {
        purge(CachePurge(entities: entities, types: types, arguments: arguments), now: .zero)
    }

    /// Purges what `purge` selects; a soft purge makes the answers stale as of `now`.
    @discardableResult
    package func purge(_ purge: CachePurge, now: Duration) -> Int {
        state.withLock { state in
            var doomed: Set<RequestKey> = []
            for entity in purge.entities { doomed.formUnion(state.index[entity] ?? []) }
            for type in purge.types {
                for key in state.index[type] ?? [] where !doomed.contains(key) {
                    if let entry = state.entries.peek(key), !entry.answer.tags.disagrees(with: purge.arguments) { doomed.insert(key) }
                }
            }
            for key in doomed {
                if purge.soft {
                    _ = state.entries.update(key) { entry in
                        entry.answer.ttl = min(entry.answer.ttl, max(.zero, now - entry.answer.storedAt))
                        entry.refreshing = false
                    }
                } else {
                    Self.remove(key, from: &state)
                }
            }
            state.statistics.invalidations += doomed.count
            if !doomed.isEmpty { state.changeCount &+= 1 }
            return doomed.count
        }
    }

    /// Removes every answer (a tier that may have missed invalidations). Returns how many.
    @discardableResult
    package func removeAll() -> Int {
        state.withLock { state in
            let count = state.entries.count
            state.entries = CostBoundedLRU(capacity: maxBytes)
            state.index = [:]
            state.statistics.invalidations += count
            state.changeCount &+= 1
            return count
        }
    }

    /// Counts how a query answer was served.
    package func record(_ outcome: CacheOutcome) {
        let bytes = state.withLock { state in
            switch outcome {
            case .hit: state.statistics.hits += 1
            case .miss: state.statistics.misses += 1
            case .bypass: state.statistics.bypasses += 1
            }
            return state.entries.totalCost
        }
        recorder?.record(.cacheBytesHeld(bytes))
    }

    /// The counters now.
    package var statistics: ResponseCacheStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.entries = state.entries.count
            statistics.bytes = state.entries.totalCost
            return statistics
        }
    }

    private static func remove(_ key: RequestKey, from state: inout State) {
        guard let entry = state.entries.removeValue(for: key) else { return }
        unindex(key, tags: entry.answer.tags, from: &state)
        state.changeCount &+= 1
    }

    private static func unindex(_ key: RequestKey, tags: CacheTags, from state: inout State) {
        for tag in tags.entities.union(tags.types) {
            state.index[tag]?.remove(key)
            if state.index[tag]?.isEmpty == true { state.index[tag] = nil }
        }
    }
}
