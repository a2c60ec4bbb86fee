import GQLGateCore
package import GQLGatePipeline

/// `clients.rate_limit`: takes a token from the client's bucket for every
/// operation (cache hits and each WebSocket `subscribe` included) and
/// refuses one over the limit with 429 `RATE_LIMITED`, `Retry-After` and the
/// RateLimit fields of draft-ietf-httpapi-ratelimit-headers-10 (structured
/// fields: `RateLimit-Policy: "default";q=BURST;w=SECONDS` and
/// `RateLimit: "default";r=REMAINING;t=SECONDS`). Runs on the server thread
/// with the pipeline's synchronous head.
package struct RateLimitExchange: InlineExchange {
    /// What a bucket is shared by.
    package enum Partition: Sendable, Equatable {
        /// `Operation.clientID`: the client's key, else its address.
        case client
        /// One bucket for everyone.
        case global
        /// Each value of this header (lower case); a request without it shares the empty value's bucket.
        case header(String)
    }

    package let limiter: RateLimiter
    package let partition: Partition
    private let policy: String

    package init(limiter: RateLimiter, partition: Partition) {
        self.limiter = limiter
        self.partition = partition
        policy = "\"default\";q=\(limiter.burst);w=\(limiter.windowSeconds)"
    }

    package func decide(_ operation: inout Operation) throws -> InlineDecision {
        let decision = limiter.take(Self.key(of: operation, partition))
        guard !decision.allowed else { return .passOn }
        throw Self.refusal(decision, policy: policy, operation: &operation)
    }

    /// The key of the bucket `operation` takes from.
    static func key(of operation: borrowing Operation, _ partition: Partition) -> String {
        switch partition {
        case .client: operation.clientID ?? ""
        case .global: ""
        case .header(let name): operation.headers[name] ?? ""
        }
    }

    /// 429 `RATE_LIMITED` for a refused `decision`, stated as shed on `operation`.
    static func refusal(_ decision: RateLimiter.Decision, policy: String, operation: inout Operation) -> GatewayError {
        operation.record(.shed(.rateLimited))
        return GatewayError.rateLimited(headers: [
            "Retry-After": GatewayError.retryAfterSeconds(decision.retryAfter),
            "RateLimit-Policy": policy,
            "RateLimit": "\"default\";r=\(decision.remaining);t=\(GatewayError.retryAfterSeconds(decision.reset))",
        ])
    }
}

/// `clients.rate_limit` with `store: redis`: the same stage over the
/// fleet's buckets (`FleetRateLimiter`), deciding from this replica's share
/// without waiting for Redis. Its answers are `RateLimitExchange`'s.
package struct FleetRateLimitExchange: InlineExchange {
    package let limiter: FleetRateLimiter
    package let partition: RateLimitExchange.Partition
    private let policy: String

    package init(limiter: FleetRateLimiter, partition: RateLimitExchange.Partition) {
        self.limiter = limiter
        self.partition = partition
        policy = "\"default\";q=\(limiter.burst);w=\(limiter.windowSeconds)"
    }

    package func decide(_ operation: inout Operation) throws -> InlineDecision {
        let decision = limiter.take(RateLimitExchange.key(of: operation, partition))
        guard !decision.allowed else { return .passOn }
        throw RateLimitExchange.refusal(decision, policy: policy, operation: &operation)
    }
}
