import GQLGateConfig
import GQLGateExchanges

extension RetryPolicy {
    /// The policy the `retry` keys describe.
    init(_ config: RetryConfig) {
        self.init(maxAttempts: config.maxAttempts, baseDelay: config.baseDelay, maxDelay: config.maxDelay,
                  onStatus: Set(config.onStatus), maxRetryAfter: config.maxRetryAfter,
                  idempotentMutations: config.idempotentMutations, deadline: config.deadline)
    }
}
