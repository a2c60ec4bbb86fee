import GQLGatePipeline

/// `upstream.circuit_breaker`: asks the `CircuitBreaker` before each upstream
/// attempt of a query or mutation. While the breaker is open, attempts fail
/// fast with 503 `UPSTREAM_CIRCUIT_OPEN` and `Retry-After` (the open time
/// left), without reaching the upstream. Placed after retries, so that each
/// attempt asks; the transport's attempt observer tells the breaker how each
/// attempt ended. Subscriptions pass (their upstream WebSocket waits out an
/// open breaker before reconnecting).
public struct CircuitBreakerStage: OperationStage {
    private let breaker: CircuitBreaker
    private let onShed: @Sendable () -> Void

    /// - Parameter onShed: called for each operation answered `UPSTREAM_CIRCUIT_OPEN` (metrics).
    public init(breaker: CircuitBreaker, onShed: @escaping @Sendable () -> Void = {}) {
        self.breaker = breaker
        self.onShed = onShed
    }

    public func prepare(_ operation: inout Operation) throws {
        guard operation.kind == .query || operation.kind == .mutation,
              case .refused(let retryAfter) = breaker.admit() else { return }
        onShed()
        operation.trace?.shed(.circuitOpen)
        throw GatewayError.upstreamCircuitOpen(retryAfter: retryAfter)
    }
}
