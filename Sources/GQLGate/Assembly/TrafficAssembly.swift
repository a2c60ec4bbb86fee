import GQLGateConfig
import GQLGateExchanges
import GQLGateHTTPClient
import GQLGateMetrics
import GQLGatePipeline
import Logging

/// The traffic protection stages the configuration turns on: the client
/// rate limit, the circuit breaker and the upstream concurrency limit. Each
/// is nil when off, so that it is not in the chain at all. A reload keeps
/// the previous pipeline's stage wherever its settings did not change, so
/// that buckets, the breaker's state and the places held by requests in
/// flight carry over (two limits side by side would let twice as many
/// requests through).
struct TrafficAssembly: Sendable {
    /// `RateLimitExchange` (`store: memory`) or `FleetRateLimitExchange` (`store: redis`).
    let rateLimit: (any InlineExchange)?
    /// The fleet's buckets, with `store: redis`.
    let fleetLimiter: FleetRateLimiter?
    /// The rest of an operation's estimated cost taken from `rateLimit`'s buckets (`by_cost`).
    var costRateLimit: CostRateLimitExchange? {
        guard byCost else { return nil }
        return switch rateLimit {
        case let local as RateLimitExchange: CostRateLimitExchange(limiter: local.limiter, partition: local.partition)
        case let fleet as FleetRateLimitExchange: CostRateLimitExchange(limiter: fleet.limiter, partition: fleet.partition)
        default: nil
        }
    }
    /// `clients.rate_limit.by_cost`.
    private let byCost: Bool
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
        (rateLimit, fleetLimiter, circuitBreaker, breaker, concurrency, identifiesClients) = (nil, nil, nil, nil, nil, false)
        byCost = false
    }

    /// - Parameters:
    ///   - client: what the circuit breaker's probe is sent with.
    ///   - redis: the pipeline's Redis, when some store uses it (`store: redis` settles there).
    ///   - loop: where the shared rate limit's settlements run.
    ///   - previous: the pipeline being replaced, whose stages are kept where their settings stay.
    ///   - recorder: told the circuit breaker's states and the rate limit's settlements.
    init(config: GatewayConfig, client: HTTPClient, redis: RedisAssembly?, loop: (any TaskExecutor)?, recorder: GatewayRecorder,
         logger: Logger, previous: GatewayGeneration?) {
        let old = previous?.config
        let limit = config.clients.rateLimit
        byCost = limit.isEnabled && limit.byCost
        identifiesClients = limit.isEnabled && limit.by == .key || config.upstream.circuitBreaker.enabled
        let fleetStore = limit.isEnabled && limit.store == .redis ? redis?.rateLimitStore(recorder: recorder, logger: logger) : nil
        if !limit.isEnabled {
            (rateLimit, fleetLimiter) = (nil, nil)
        } else if let kept = previous?.traffic, let exchange = kept.rateLimit, let old, old.clients.rateLimit == limit,
                  limit.store == .memory || old.sharesRedis(with: config) {
            // The buckets carry over; a shared limit settles through the new pipeline's client (to the same Redis).
            (rateLimit, fleetLimiter) = (exchange, kept.fleetLimiter)
            if let fleetStore { kept.fleetLimiter?.use(fleetStore) }
        } else {
            let partition: RateLimitExchange.Partition = switch limit.by {
            case .key: .client
            case .global: .global
            case .header(let name): .header(name)
            }
            if let fleetStore {
                let limiter = FleetRateLimiter(
                    settings: .init(requestsPerSecond: limit.requestsPerSecond, burst: limit.effectiveBurst, partition: limit.by.description),
                    store: fleetStore, recorder: recorder)
                limiter.start(executor: loop, sleep: LoopHooks.sleep)
                (rateLimit, fleetLimiter) = (FleetRateLimitExchange(limiter: limiter, partition: partition), limiter)
            } else {
                rateLimit = RateLimitExchange(
                    limiter: RateLimiter(requestsPerSecond: limit.requestsPerSecond, burst: limit.effectiveBurst),
                    partition: partition)
                fleetLimiter = nil
            }
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

extension GatewayConfig {
    /// Whether `other` reaches the same Redis, under the same key prefix, the same way.
    fileprivate func sharesRedis(with other: GatewayConfig) -> Bool {
        effectiveRedisURL.url == other.effectiveRedisURL.url && effectiveRedisKeyPrefix == other.effectiveRedisKeyPrefix
            && redis == other.redis
    }
}
