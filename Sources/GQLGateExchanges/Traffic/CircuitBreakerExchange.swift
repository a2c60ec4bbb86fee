package import GQLGatePipeline

/// `upstream.circuit_breaker`: asks the `CircuitBreaker` before each upstream
/// attempt of a query or mutation, and tells it how the attempt ended and
/// whose it was (`Operation.clientID`). While the breaker is open, attempts
/// fail fast with 503 `UPSTREAM_CIRCUIT_OPEN` and `Retry-After` (the open
/// time left), without reaching the upstream. Placed after retries, so that
/// each attempt asks. Subscriptions pass (their upstream WebSocket waits out
/// an open breaker before reconnecting).
package struct CircuitBreakerExchange: Exchange {
    private let breaker: CircuitBreaker

    package init(breaker: CircuitBreaker) {
        self.breaker = breaker
    }

    package func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        guard operation.kind == .query || operation.kind == .mutation else { return try await next(operation) }
        if case .refused(let retryAfter) = breaker.admit() {
            operation.record(.shed(.circuitOpen))
            throw GatewayError.upstreamCircuitOpen(retryAfter: retryAfter)
        }
        let client = operation.clientID
        let answer: GraphQLResponse
        do {
            guard let first = try await next(operation).first() else { throw GatewayError.noResult }
            answer = first
        } catch {
            if let failed = CircuitBreaker.failed(UpstreamAttemptOutcome(error: error)) { breaker.record(failed: failed, client: client) }
            throw error
        }
        if let failed = CircuitBreaker.failed(.answered(status: answer.status)) { breaker.record(failed: failed, client: client) }
        return .single(answer)
    }
}
