@_spi(GQLGateInternals) import GQLGateCore

/// Caps retries so an upstream outage is not multiplied: in any 10 s window
/// (ten one-second buckets) retries stay at or below
/// `max(minimumRetries, ratio × client requests in the window)`.
/// Shared by every loop; one short lock per request and per retry.
package final class RetryBudget: Sendable {
    private struct Bucket {
        var second: UInt64 = .max
        var requests = 0
        var retries = 0
    }

    private static let bucketCount = 10
    private let ratio: Double
    private let minimumRetries: Int
    private let buckets = Lock<[Bucket]>(Array(repeating: Bucket(), count: RetryBudget.bucketCount))

    /// - Parameters:
    ///   - ratio: `retry.budget`, the share of requests that may be retried.
    ///   - minimumRetries: retries always allowed per window, however few the requests.
    package init(ratio: Double, minimumRetries: Int = 3) {
        self.ratio = ratio
        self.minimumRetries = minimumRetries
    }

    /// Counts one client request at `now` (monotonic nanoseconds).
    package func recordRequest(now: UInt64) {
        buckets.withLock { buckets in
            Self.bucket(for: now, in: &buckets) { $0.requests += 1 }
        }
    }

    /// Takes one retry from the budget at `now`; `false` when it is spent.
    package func tryRetry(now: UInt64) -> Bool {
        buckets.withLock { buckets in
            let second = now / 1_000_000_000
            var requests = 0, retries = 0
            for bucket in buckets where bucket.second != .max && bucket.second + UInt64(Self.bucketCount) > second {
                requests += bucket.requests
                retries += bucket.retries
            }
            let allowed = max(Double(minimumRetries), ratio * Double(requests))
            guard Double(retries + 1) <= allowed else { return false }
            Self.bucket(for: now, in: &buckets) { $0.retries += 1 }
            return true
        }
    }

    private static func bucket(for now: UInt64, in buckets: inout [Bucket], _ update: (inout Bucket) -> Void) {
        let second = now / 1_000_000_000
        let index = Int(second % UInt64(bucketCount))
        if buckets[index].second != second { buckets[index] = Bucket(second: second) }
        update(&buckets[index])
    }
}
