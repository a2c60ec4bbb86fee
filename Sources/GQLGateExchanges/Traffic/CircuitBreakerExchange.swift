import GQLGatePipeline

/// `upstream.circuit_breaker`: asks the `CircuitBreaker` before each upstream
/// attempt of a query or mutation and tells it how the attempt ended. While
/// the breaker is open, attempts fail fast with 503 `UPSTREAM_CIRCUIT_OPEN`
/// and `Retry-After` (the open time left), without reaching the upstream.
/// Placed after retries, so each attempt counts. Subscriptions pass through
/// (their upstream WebSocket asks the breaker before reconnecting).
public struct CircuitBreakerExchange: Exchange {
    /// The upstream answers that count as failures.
    static let failingStatuses: Set<Int> = [502, 503, 504]

    private let breaker: CircuitBreaker
    private let onShed: @Sendable () -> Void

    /// - Parameter onShed: called for each operation answered `UPSTREAM_CIRCUIT_OPEN` (metrics).
    public init(breaker: CircuitBreaker, onShed: @escaping @Sendable () -> Void = {}) {
        self.breaker = breaker
        self.onShed = onShed
    }

    public func handle(_ operation: consuming Operation, next: ExchangeNext) async throws -> ResultStream {
        guard operation.kind == .query || operation.kind == .mutation else { return try await next(consume operation) }
        let probe: Bool
        switch breaker.admit() {
        case .admitted(let isProbe):
            probe = isProbe
        case .refused(let retryAfter):
            onShed()
            operation.trace?.shed(.circuitOpen)
            throw GatewayError.upstreamCircuitOpen(retryAfter: retryAfter)
        }
        do {
            guard let answer = try await next(consume operation).first() else {
                breaker.record(failed: true, probe: probe)
                return .single(GatewayError.upstreamUnavailable("The upstream sent no result.").response())
            }
            breaker.record(failed: Self.failingStatuses.contains(answer.status), probe: probe)
            return .single(answer)
        } catch let failure as UpstreamFailure {
            breaker.record(failed: true, probe: probe)
            throw failure
        } catch {
            breaker.record(failed: nil, probe: probe)
            throw error
        }
    }
}
