@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// Token buckets, one per partition key, each kept as one number: the
/// generic cell rate algorithm's theoretical arrival time (when the bucket
/// would be full again). Taking a token is a few additions and one table
/// look-up. A bucket that has filled up again is the same as none, so idle
/// buckets are dropped as new keys come in, and the table is bounded by the
/// bytes of its keys: a flood of distinct keys pushes out the least recently
/// used buckets instead of growing memory.
package final class RateLimiter: Sendable {
    /// What taking a token came to.
    package struct Decision: Sendable, Equatable {
        /// Whether the request may go on.
        package var allowed: Bool
        /// Tokens left after this request.
        package var remaining: Int
        /// Until a token is there again (0 when allowed).
        package var retryAfter: Duration
        /// Until the bucket is full again.
        package var reset: Duration
    }

    /// Tokens a full bucket holds.
    package let burst: Int
    /// Nanoseconds one token takes to come back.
    let interval: UInt64
    /// `burst × interval`: how far ahead of now a bucket's arrival time may be.
    private let capacity: UInt64
    private let buckets: Lock<CostBoundedLRU<String, UInt64>>
    private let clock: GatewayClock

    /// Bytes a bucket costs besides its key's (the table's slot and index entry).
    static let bucketOverhead = 96

    /// - Parameters:
    ///   - requestsPerSecond: how fast a bucket refills (> 0).
    ///   - burst: how many tokens a full bucket holds (> 0).
    ///   - maxTableBytes: the most the keys and buckets may take together.
    package init(requestsPerSecond: Double, burst: Int, maxTableBytes: Int = 8 << 20, clock: GatewayClock = .system) {
        precondition(requestsPerSecond > 0 && burst > 0)
        self.burst = burst
        // Bounded so that no sum or difference of instants overflows, nor a duration made from one (about 36 years each).
        let limit: UInt64 = 1 << 60
        interval = UInt64(min(max(1, (1e9 / requestsPerSecond).rounded()), Double(limit)))
        let (product, overflow) = UInt64(burst).multipliedReportingOverflow(by: interval)
        capacity = overflow ? limit : min(product, limit)
        buckets = Lock(CostBoundedLRU(capacity: maxTableBytes))
        self.clock = clock
    }

    /// The seconds a bucket takes to fill up from empty, at least 1: the window of `RateLimit-Policy`.
    package var windowSeconds: UInt64 { max(1, (capacity + 999_999_999) / 1_000_000_000) }

    /// Buckets held.
    package var count: Int { buckets.withLock { $0.count } }

    /// Takes `tokens` from the bucket of `key` (at most a full bucket: an
    /// operation that costs more than `burst` needs the whole bucket).
    package func take(_ key: String, tokens: Int = 1) -> Decision {
        let (product, overflow) = interval.multipliedReportingOverflow(by: UInt64(min(max(1, tokens), burst)))
        let step = overflow ? capacity : min(product, capacity)
        let now = clock.monotonicNanoseconds()
        return buckets.withLock { table in
            var decision = Decision(allowed: true, remaining: Int((capacity - step) / interval), retryAfter: .zero, reset: .nanoseconds(Int64(step)))
            let known = table.updateAsNewest(key) { arrival in
                decision = self.decision(arrival: &arrival, now: now, step: step)
            }
            if !known {
                Self.dropFullBuckets(from: &table, now: now)
                table.insert(now &+ step, for: key, cost: key.utf8.count + Self.bucketOverhead)
            }
            return decision
        }
    }

    /// Takes `step` (tokens × `interval`) from the bucket whose arrival time is `arrival`, moving it on when allowed.
    private func decision(arrival: inout UInt64, now: UInt64, step: UInt64) -> Decision {
        let start = max(arrival, now)
        let next = start &+ step
        guard next &- now <= capacity else {
            return Decision(allowed: false, remaining: 0, retryAfter: .nanoseconds(Int64(next &- now &- capacity)),
                            reset: .nanoseconds(Int64(start &- now)))
        }
        arrival = next
        return Decision(allowed: true, remaining: Int((capacity &- (next &- now)) / interval), retryAfter: .zero,
                        reset: .nanoseconds(Int64(next &- now)))
    }

    /// Drops up to a few of the least recently used buckets that are full
    /// again: each new bucket removes more than it adds, so the table
    /// shrinks back once a flood is over.
    private static func dropFullBuckets(from table: inout CostBoundedLRU<String, UInt64>, now: UInt64) {
        for _ in 0..<4 {
            guard let oldest = table.oldestEntry, oldest.value <= now else { return }
            table.removeValue(for: oldest.key)
        }
    }
}
