package import GQLGatePipeline

/// `clients.rate_limit.by_cost`: an operation takes its estimated cost in
/// tokens from the client's bucket. The `rateLimit` slot took one token
/// already (every operation counts, refused ones and cache hits included);
/// this stage, after `demandControl`, takes the rest of the cost (rounded
/// up), and answers as `RateLimitExchange` does when the bucket cannot give it.
package struct CostRateLimitExchange: InlineExchange {
    /// Takes `tokens` from the bucket of a key.
    package typealias Take = @Sendable (_ key: String, _ tokens: Int) -> RateLimiter.Decision

    private let take: Take
    private let partition: RateLimitExchange.Partition
    private let policy: String
    /// Tokens a full bucket holds: an operation costing more takes the whole bucket.
    private let burst: Int

    package init(limiter: RateLimiter, partition: RateLimitExchange.Partition) {
        take = { limiter.take($0, tokens: $1) }
        self.partition = partition
        burst = limiter.burst
        policy = "\"default\";q=\(limiter.burst);w=\(limiter.windowSeconds)"
    }

    package init(limiter: FleetRateLimiter, partition: RateLimitExchange.Partition) {
        take = { limiter.take($0, tokens: $1) }
        self.partition = partition
        burst = limiter.burst
        policy = "\"default\";q=\(limiter.burst);w=\(limiter.windowSeconds)"
    }

    package func decide(_ operation: inout Operation) throws -> InlineDecision {
        guard let cost = operation.estimatedCost else { return .passOn }
        let rest = min(Int(min(cost.rounded(.up), 1e9)), burst) - 1
        guard rest > 0 else { return .passOn }
        let decision = take(RateLimitExchange.key(of: operation, partition), rest)
        guard !decision.allowed else { return .passOn }
        throw RateLimitExchange.refusal(decision, policy: policy, operation: &operation)
    }
}
