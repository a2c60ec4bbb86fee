import GQLGateConfig
import GQLGateExchanges
import GQLGateHTTPClient
import GQLGateMetrics
import GQLGatePipeline

/// The traffic protection stages the configuration turns on: the client
/// rate limit, the circuit breaker and the upstream concurrency limit. Each
/// is nil when off, so that it is not in the chain at all. A reload keeps
/// the previous pipeline's stage wherever its settings did not change, so
/// that buckets, the breaker's state and the places held by requests in
/// flight carry over (two limits side by side would let twice as many
/// requests through).
struct TrafficAssembly: Sendable {
    let rateLimit: RateLimitExchange?
    let circuitBreaker: CircuitBreakerExchange?
    /// The breaker `circuitBreaker` asks (for `/readyz` and subscription reconnects).
    let breaker: CircuitBreaker?
    let concurrency: UpstreamConcurrencyExchange?
    /// Whether operations need `Operation.clientID` (rate limits by client, the circuit breaker).
    let identifiesClients: Bool

    /// The wait an upstream WebSocket takes before connecting: the breaker's open time left.
    var connectWait: (@Sendable () -> Duration?)? {
        guard let breaker else { return nil }
        return { breaker.openTimeLeft }
    }

    /// None.
    init() {
        (rateLimit, circuitBreaker, breaker, concurrency, identifiesClients) = (nil, nil, nil, nil, false)
    }

    /// - Parameters:
    ///   - client: what the circuit breaker's probe is sent with.
    ///   - previous: the pipeline being replaced, whose stages are kept where their settings stay.
    ///   - recorder: told the circuit breaker's states.
    init(config: GatewayConfig, client: HTTPClient, recorder: GatewayRecorder, previous: GatewayGeneration?) {
        let old = previous?.config
        let limit = config.clients.rateLimit
        identifiesClients = limit.isEnabled && limit.by == .key || config.upstream.circuitBreaker.enabled
        if !limit.isEnabled {
            rateLimit = nil
        } else if let kept = previous?.traffic.rateLimit, old?.clients.rateLimit == limit {
            rateLimit = kept
        } else {
            let partition: RateLimitExchange.Partition = switch limit.by {
            case .key: .client
            case .global: .global
            case .header(let name): .header(name)
            }
            rateLimit = RateLimitExchange(
                limiter: RateLimiter(requestsPerSecond: limit.requestsPerSecond, burst: limit.effectiveBurst),
                partition: partition)
        }

        let breakerConfig = config.upstream.circuitBreaker
        if !breakerConfig.enabled {
            (breaker, circuitBreaker) = (nil, nil)
            recorder.record(.circuitStateChanged(CircuitBreaker.State.closed.rawValue))
        } else if let kept = previous?.traffic, let exchange = kept.circuitBreaker, old?.upstream.circuitBreaker == breakerConfig,
                  old?.upstream.url == config.upstream.url {
            (breaker, circuitBreaker) = (kept.breaker, exchange)
        } else {
            let settings = CircuitBreaker.Settings(
                errorRatio: breakerConfig.errorRatio, minRequests: breakerConfig.minRequests, window: breakerConfig.window,
                openFor: breakerConfig.openFor)
            recorder.record(.circuitStateChanged(CircuitBreaker.State.closed.rawValue))
            let probe = ReadinessProbe(upstream: config.upstream)
            let made = CircuitBreaker(
                settings: settings,
                probe: {
                    guard let answer = try? await client.execute(probe.request) else { return false }
                    return CircuitBreaker.failed(.answered(status: answer.status)) == false
                },
                executor: LoopHooks.currentExecutor, recorder: recorder)
            breaker = made
            circuitBreaker = CircuitBreakerExchange(breaker: made)
        }

        let upstream = config.upstream
        if upstream.maxConcurrency == 0 {
            concurrency = nil
        } else if let kept = previous?.traffic.concurrency, old?.upstream.maxConcurrency == upstream.maxConcurrency,
                  old?.upstream.queueTimeout == upstream.queueTimeout {
            concurrency = kept
        } else {
            concurrency = UpstreamConcurrencyExchange(
                limit: ConcurrencyLimit(limit: upstream.maxConcurrency, queueTimeout: upstream.queueTimeout, sleep: LoopHooks.sleep))
        }
    }
}
