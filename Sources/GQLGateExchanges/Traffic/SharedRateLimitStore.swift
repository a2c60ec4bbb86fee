/// Where the replicas of a fleet keep what `clients.rate_limit` with
/// `store: redis` shares: one bucket per partition key, kept by the generic
/// cell rate algorithm in the store's own clock (its theoretical arrival
/// time: when the bucket would be full again), and which replicas take from
/// it. `FleetRateLimiter` settles with it in the background; no request
/// waits for it. `GQLGateRedis.RedisRateLimitStore` implements it.
package protocol SharedRateLimitStore: Sendable {
    /// Adds `admitted` requests that `replica` let through to the bucket
    /// `key` (a digest of the partition key, safe to use as a key name),
    /// counts `replica` as taking from it, and returns the bucket as it is
    /// after that. Nil when the store could not be reached or answered
    /// something else: the caller falls back to its own bucket.
    func settle(_ key: String, admitted: Int, replica: String, policy: SharedRateLimitPolicy) async -> SharedBucket?

    /// Counts `replica` as running and returns how many replicas ran within
    /// `policy.activeFor` (this one included); nil when the store could not
    /// be reached.
    func announce(replica: String, policy: SharedRateLimitPolicy) async -> Int?
}

/// The settings every replica's settlements carry.
package struct SharedRateLimitPolicy: Sendable, Equatable {
    /// Nanoseconds one token takes to come back (1 s ÷ `requests_per_second`).
    package var interval: UInt64
    /// Nanoseconds an empty bucket takes to fill (`burst` × `interval`).
    package var capacity: UInt64
    /// How long a replica counts as taking from a bucket (or as running) after it last said so.
    package var activeFor: Duration

    package init(interval: UInt64, capacity: UInt64, activeFor: Duration) {
        self.interval = interval
        self.capacity = capacity
        self.activeFor = activeFor
    }
}

/// One shared bucket as a settlement left it.
package struct SharedBucket: Sendable, Equatable {
    /// How far the bucket's theoretical arrival time is ahead of the store's
    /// now, in nanoseconds: 0 for a full bucket, `capacity` for an empty one,
    /// more while the fleet is in debt (it let through more than one bucket
    /// would have, and holds back until that is paid).
    package var ahead: UInt64
    /// The replicas that took from it within `activeFor`, the settling one included (at least 1).
    package var replicas: Int

    package init(ahead: UInt64, replicas: Int) {
        self.ahead = ahead
        self.replicas = max(1, replicas)
    }
}
