import GQLGateConfig
import GQLGateExchanges
import GQLGateMetrics
import GQLGatePipeline

/// The traffic protection stages the configuration turns on: the client
/// rate limit, the circuit breaker and the upstream concurrency limit. Each
/// is nil when off, so that it is not in the chain at all.
struct TrafficStages {
    let rateLimit: RateLimitStage?
    let circuitBreaker: CircuitBreakerExchange?
    /// The breaker `circuitBreaker` asks (for `/readyz` and subscription reconnects).
    let breaker: CircuitBreaker?
    let concurrency: UpstreamConcurrencyExchange?
    /// Whether operations need `Operation.clientID` (rate limits by client).
    let identifiesClients: Bool

    /// The wait an upstream WebSocket takes before connecting: the breaker's open time left.
    var connectWait: (@Sendable () -> Duration?)? {
        guard let breaker else { return nil }
        return { breaker.openTimeLeft }
    }

    init(config: GatewayConfig, metrics: GatewayMetrics) {
        let limit = config.clients.rateLimit
        if limit.isEnabled {
            let partition: RateLimitStage.Partition = switch limit.by {
            case .key: .client
            case .global: .global
            case .header(let name): .header(name)
            }
            rateLimit = RateLimitStage(
                limiter: RateLimiter(requestsPerSecond: limit.requestsPerSecond, burst: limit.effectiveBurst),
                partition: partition, onLimited: { metrics.rateLimited() })
            identifiesClients = partition == .client
        } else {
            rateLimit = nil
            identifiesClients = false
        }
        let breakerConfig = config.upstream.circuitBreaker
        if breakerConfig.enabled {
            let settings = CircuitBreaker.Settings(
                errorRatio: breakerConfig.errorRatio, minRequests: breakerConfig.minRequests, window: breakerConfig.window,
                openFor: breakerConfig.openFor)
            metrics.circuitState(CircuitBreaker.State.closed.rawValue)
            let made = CircuitBreaker(settings: settings, onChange: { metrics.circuitState($0.rawValue) })
            breaker = made
            circuitBreaker = CircuitBreakerExchange(breaker: made, onShed: { metrics.loadShed(.circuitOpen) })
        } else {
            breaker = nil
            circuitBreaker = nil
        }
        if config.upstream.maxConcurrency > 0 {
            concurrency = UpstreamConcurrencyExchange(
                limit: ConcurrencyLimit(limit: config.upstream.maxConcurrency, queueTimeout: config.upstream.queueTimeout, sleep: LoopHooks.sleep),
                onShed: { metrics.loadShed(.overloaded) })
        } else {
            concurrency = nil
        }
    }
}
