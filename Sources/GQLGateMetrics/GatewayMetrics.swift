import CoreMetrics
import GQLGateCore
package import GQLGatePipeline
package import Prometheus

/// The gateway's Prometheus metrics: every series the contract names, created
/// once at start with bounded labels, so recording never builds a string: a
/// counter or gauge is one atomic add, a histogram one short lock.
///
/// One value per process, shared by every pipeline (a reload keeps the counts).
/// The gateway's recorder calls its methods (package); `GET /metrics` renders
/// `registry`. Publicly it is made (`init()`), handed to `Gateway.init`, and
/// rendered (`render()`).
///
/// ```swift
/// metrics.retry(reason: .status(503))
/// metrics.cacheHit()
/// ```
public final class GatewayMetrics: Sendable {
    /// The registry `GET /metrics` renders.
    package let registry: PrometheusCollectorRegistry
    /// A swift-metrics factory over `registry`. Package: an embedder's own
    /// exchanges cannot record metrics into it yet (publishing it would put
    /// swift-prometheus's type in the public API).
    package let factory: PrometheusMetricsFactory

    private let requests: [[CoreMetrics.Counter]]
    private let requestDurations: [ValueHistogram]
    private let upstreamRequests: LabelledCounters
    private let upstreamDuration: ValueHistogram
    private let retries: LabelledCounters
    private let cacheHits: CoreMetrics.Counter
    private let cacheMisses: CoreMetrics.Counter
    private let cacheSize: Meter
    private let subscriptions: Meter
    private let upstreamSubscriptions: Meter
    private let websocketConnections: Meter
    private let tokenRefreshes: [CoreMetrics.Counter]
    private let persistedDocuments: [CoreMetrics.Counter]
    private let rateLimitedRequests: CoreMetrics.Counter
    private let loadShed: [CoreMetrics.Counter]
    private let upstreamInFlight: Meter
    private let circuitState: Meter
    private let spansDropped: CoreMetrics.Counter
    private let schemaLoaded: Meter
    private let schemaRefreshes: [CoreMetrics.Counter]
    private let cacheInvalidations: [CoreMetrics.Counter]
    private let cacheMemoryTierDrops: CoreMetrics.Counter
    private let redisUp: Meter
    private let redisReconnects: CoreMetrics.Counter
    private let redisErrors: [CoreMetrics.Counter]
    private let rateLimitSettlements: [CoreMetrics.Counter]
    /// `metrics.field_usage`'s counters (rendered after the registry's series).
    package let fieldUsage = FieldUsageCounters()
    /// `gqlgate_operation_cost` and the estimated costs by operation name (rendered after the registry's series).
    private let operationCosts = OperationCostStatistics()

    /// Histogram buckets for request and upstream durations: 1 ms to 10 s
    /// (the default `upstream.timeout`).
    package static let durationBuckets: [Duration] = [
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// Every series, in a registry of their own.
    public convenience init() {
        self.init(registry: PrometheusCollectorRegistry())
    }

    /// Registers every series in `registry`.
    package init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        self.factory = factory

        requests = OperationLabel.allCases.map { operation in
            StatusClass.allCases.map { status in
                Counter(label: "gqlgate_requests_total", dimensions: [("operation", operation.rawValue), ("status", status.rawValue)],
                        factory: factory)
            }
        }
        // Histograms of seconds as `Double`s: recording one compares 13 doubles,
        // where a `Duration` histogram compares 13 128-bit durations.
        let seconds = Self.durationBuckets.map(Self.seconds)
        let durationName = { (name: String) in MetricNameDescriptor(metricName: name, unitName: "seconds", helpText: "") }
        requestDurations = OperationLabel.allCases.map { operation in
            registry.makeValueHistogram(descriptor: durationName("gqlgate_request_duration"), labels: [("operation", operation.rawValue)],
                                        buckets: seconds)
        }
        upstreamRequests = LabelledCounters(
            "gqlgate_upstream_requests_total", label: "outcome", values: UpstreamAttemptOutcome.labels, factory: factory)
        upstreamDuration = registry.makeValueHistogram(descriptor: durationName("gqlgate_upstream_duration"), buckets: seconds)
        retries = LabelledCounters("gqlgate_retries_total", label: "reason", values: RetryReason.labels, factory: factory)
        cacheHits = Counter(label: "gqlgate_cache_hits_total", factory: factory)
        cacheMisses = Counter(label: "gqlgate_cache_misses_total", factory: factory)
        cacheSize = Meter(label: "gqlgate_cache_bytes", factory: factory)
        subscriptions = Meter(label: "gqlgate_subscriptions_active", factory: factory)
        upstreamSubscriptions = Meter(label: "gqlgate_upstream_subscriptions_active", factory: factory)
        websocketConnections = Meter(label: "gqlgate_websocket_connections_active", factory: factory)
        tokenRefreshes = TokenRefreshOutcome.allCases.map {
            Counter(label: "gqlgate_token_refreshes_total", dimensions: [("outcome", $0.rawValue)], factory: factory)
        }
        persistedDocuments = PersistedDocumentOutcome.allCases.map {
            Counter(label: "gqlgate_persisted_documents_total", dimensions: [("outcome", $0.rawValue)], factory: factory)
        }
        rateLimitedRequests = Counter(label: "gqlgate_rate_limited_total", factory: factory)
        loadShed = LoadShedReason.allCases.map {
            Counter(label: "gqlgate_load_shed_total", dimensions: [("reason", $0.rawValue)], factory: factory)
        }
        upstreamInFlight = Meter(label: "gqlgate_upstream_in_flight", factory: factory)
        circuitState = Meter(label: "gqlgate_circuit_state", factory: factory)
        spansDropped = Counter(label: "gqlgate_spans_dropped_total", factory: factory)
        schemaLoaded = Meter(label: "gqlgate_schema_loaded", factory: factory)
        schemaRefreshes = SchemaRefreshOutcome.allCases.map {
            Counter(label: "gqlgate_schema_refreshes_total", dimensions: [("outcome", $0.rawValue)], factory: factory)
        }
        cacheInvalidations = CacheInvalidationSource.allCases.map {
            Counter(label: "gqlgate_cache_invalidations_total", dimensions: [("source", $0.rawValue)], factory: factory)
        }
        cacheMemoryTierDrops = Counter(label: "gqlgate_cache_memory_tier_drops_total", factory: factory)
        redisUp = Meter(label: "gqlgate_redis_up", factory: factory)
        redisReconnects = Counter(label: "gqlgate_redis_reconnects_total", factory: factory)
        redisErrors = SharedStore.allCases.map {
            Counter(label: "gqlgate_redis_errors_total", dimensions: [("store", $0.rawValue)], factory: factory)
        }
        rateLimitSettlements = ["ok", "failed"].map {
            Counter(label: "gqlgate_rate_limit_settlements_total", dimensions: [("outcome", $0)], factory: factory)
        }
        for meter in [cacheSize, subscriptions, upstreamSubscriptions, websocketConnections, upstreamInFlight, circuitState, schemaLoaded, redisUp] {
            meter.set(0)
        }
    }

    /// The metrics in the Prometheus text exposition format.
    public func render() -> [UInt8] {
        var output = registry.emitToBuffer()
        operationCosts.render(into: &output)
        fieldUsage.render(into: &output)
        return output
    }

    /// The demand control stage estimated the cost of an operation named `operationName` (nil: anonymous).
    package func operationCostEstimated(_ cost: Double, operationName: String?) {
        operationCosts.record(cost, operationName: operationName)
    }

    // MARK: - Requests and upstream calls

    /// A client request was answered.
    /// - Parameters:
    ///   - kind: the operation's kind; nil when the request was refused before its document was analysed.
    ///   - status: the status sent to the client.
    ///   - duration: from the whole request being received to the answer being handed to the server.
    package func requestFinished(kind: OperationKind?, status: Int, duration: Duration) {
        let operation = OperationLabel(kind)
        requests[operation.index][StatusClass(status: status).index].increment()
        requestDurations[operation.index].record(Self.seconds(duration))
    }

    /// One upstream attempt ended.
    package func upstreamFinished(outcome: UpstreamAttemptOutcome, duration: Duration) {
        upstreamRequests.increment(outcome.label)
        upstreamDuration.record(Self.seconds(duration))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.nanoseconds) / 1e9
    }

    /// An upstream attempt is retried.
    package func retry(reason: RetryReason) {
        retries.increment(reason.label)
    }

    // MARK: - Cache

    /// A query was answered from the cache.
    package func cacheHit() { cacheHits.increment() }

    /// A cacheable query was not in the cache.
    package func cacheMiss() { cacheMisses.increment() }

    /// The cache now holds `bytes`.
    package func cacheBytes(_ bytes: Int) { cacheSize.set(bytes) }

    // MARK: - Subscriptions and WebSockets

    /// A client subscription started.
    package func subscriptionStarted() { subscriptions.increment() }

    /// A client subscription ended.
    package func subscriptionEnded() { subscriptions.decrement() }

    /// A subscription was opened on an upstream connection.
    package func upstreamSubscriptionStarted() { upstreamSubscriptions.increment() }

    /// A subscription on an upstream connection ended.
    package func upstreamSubscriptionEnded() { upstreamSubscriptions.decrement() }

    /// A client WebSocket connection was accepted.
    package func websocketOpened() { websocketConnections.increment() }

    /// A client WebSocket connection closed.
    package func websocketClosed() { websocketConnections.decrement() }

    // MARK: - Upstream credentials

    /// An upstream token (OAuth2, or a re-read token file) was refreshed, or the refresh failed.
    package func tokenRefreshed(_ outcome: TokenRefreshOutcome) {
        tokenRefreshes[outcome.index].increment()
    }

    // MARK: - Persisted documents

    /// One operation passed the persisted documents' stages with `outcome`.
    package func persistedDocument(_ outcome: PersistedDocumentOutcome) {
        persistedDocuments[outcome.index].increment()
    }

    // MARK: - Traffic protection

    /// An operation was refused over `clients.rate_limit`.
    package func rateLimited() { rateLimitedRequests.increment() }

    /// The shared rate limit settled one key with Redis, or failed to
    /// (`gqlgate_rate_limit_settlements_total{outcome="ok"|"failed"}`).
    package func rateLimitSettled(succeeded: Bool) { rateLimitSettlements[succeeded ? 0 : 1].increment() }

    /// An operation was refused to protect the upstream.
    package func loadShed(_ reason: LoadShedReason) { loadShed[reason.index].increment() }

    /// An upstream HTTP attempt started.
    package func upstreamAttemptStarted() { upstreamInFlight.increment() }

    /// An upstream HTTP attempt ended.
    package func upstreamAttemptEnded() { upstreamInFlight.decrement() }

    /// The circuit breaker's state: 0 closed, 1 open, 2 half-open.
    package func circuitState(_ state: Int) { circuitState.set(state) }

    // MARK: - Schema

    /// Whether gqlgate holds a schema (`gqlgate_schema_loaded`, 0 or 1).
    package func schemaLoaded(_ loaded: Bool) { schemaLoaded.set(loaded ? 1 : 0) }

    /// The schema's source was read, with `outcome`.
    package func schemaRefreshed(_ outcome: SchemaRefreshOutcome) { schemaRefreshes[outcome.index].increment() }

    /// Cached answers were purged for `source` (`gqlgate_cache_invalidations_total{source}`).
    package func cacheInvalidated(_ source: CacheInvalidationSource) {
        cacheInvalidations[CacheInvalidationSource.allCases.firstIndex(of: source)!].increment()
    }

    /// A tiered cache's memory tier was dropped whole (`gqlgate_cache_memory_tier_drops_total`).
    package func cacheMemoryTierDropped() { cacheMemoryTierDrops.increment() }

    /// Whether Redis is reachable (`gqlgate_redis_up`, 0 or 1; 0 while no store uses Redis).
    package func redisAvailable(_ up: Bool) { redisUp.set(up ? 1 : 0) }

    /// A Redis connection is being made again (`gqlgate_redis_reconnects_total`).
    package func redisReconnecting() { redisReconnects.increment() }

    /// A command of `store` failed (`gqlgate_redis_errors_total{store}`).
    package func redisCommandFailed(_ store: SharedStore) { redisErrors[SharedStore.allCases.firstIndex(of: store)!].increment() }

    // MARK: - Tracing

    /// `count` spans were dropped: the export queue was full, or their export failed.
    package func spansDropped(_ count: Int) { spansDropped.increment(by: count) }
}

/// One counter per value of a label whose values the pipeline names
/// (`UpstreamAttemptOutcome.labels`, `RetryReason.labels`), found by its
/// value: a few short strings, compared in place, with no hashing.
struct LabelledCounters: Sendable {
    private let counters: [(value: String, counter: CoreMetrics.Counter)]

    init(_ name: String, label: String, values: [String], factory: PrometheusMetricsFactory) {
        counters = values.map { ($0, Counter(label: name, dimensions: [(label, $0)], factory: factory)) }
    }

    /// Counts one for `value` (a value without a series is not counted).
    func increment(_ value: String) {
        counters.first { $0.value == value }?.counter.increment()
    }
}
