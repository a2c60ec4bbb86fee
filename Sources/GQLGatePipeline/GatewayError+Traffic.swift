public import GQLGateCore

extension GatewayError {
    /// 429 `RATE_LIMITED`: the client is over `clients.rate_limit`; `headers`
    /// carry `Retry-After` and the RateLimit fields.
    public static func rateLimited(headers: HTTPHeaders) -> GatewayError {
        GatewayError(status: 429, code: "RATE_LIMITED", message: "Too many requests: over clients.rate_limit.", headers: headers)
    }

    /// 503 `UPSTREAM_OVERLOADED`: no place among `upstream.max_concurrency` within `upstream.queue_timeout`.
    public static func upstreamOverloaded(retryAfter: Duration) -> GatewayError {
        GatewayError(status: 503, code: "UPSTREAM_OVERLOADED",
                     message: "The upstream is busy: no place among upstream.max_concurrency within upstream.queue_timeout.",
                     headers: ["Retry-After": retryAfterSeconds(retryAfter)])
    }

    /// 503 `UPSTREAM_CIRCUIT_OPEN`: the circuit breaker stops requests to a failing upstream for `retryAfter`.
    public static func upstreamCircuitOpen(retryAfter: Duration) -> GatewayError {
        GatewayError(status: 503, code: "UPSTREAM_CIRCUIT_OPEN",
                     message: "The upstream is failing: requests are not sent to it for now (upstream.circuit_breaker).",
                     headers: ["Retry-After": retryAfterSeconds(retryAfter)])
    }

    /// `Retry-After`'s delay-seconds: whole seconds, rounded up, at least 1.
    package static func retryAfterSeconds(_ delay: Duration) -> String {
        String(max(1, (delay.nanoseconds + 999_999_999) / 1_000_000_000))
    }
}
