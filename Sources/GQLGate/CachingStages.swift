import GQLGateConfig
import GQLGateExchanges
import GQLGateMetrics
import GQLGatePipeline

/// The exchanges that save upstream work, built from the `apq`, `cache` and
/// `dedupe` settings: APQ goes first in the chain (before the document is
/// parsed), the cache and dedupe after the query limits.
struct CachingStages: Sendable {
    /// `APQExchange` when `apq.enabled`.
    let beforeDocument: [any Exchange]
    /// The APQ exchange, when `apq.enabled`.
    let apq: APQExchange?
    /// The cache exchange, when `cache.enabled`.
    let cacheExchange: CacheExchange?
    /// `CacheExchange` when `cache.enabled`, then `DedupeExchange` when `dedupe.enabled`.
    let afterLimits: [any Exchange]
    /// The response cache, when enabled.
    let cache: MemoryResponseCache?
    /// Where the cache reads the upstream schema from, when it tags entities
    /// (`cache.enabled` and `invalidate_on_mutation`): learned by introspection.
    let schema: EntitySchemaSource?

    init(config: GatewayConfig, metrics: GatewayMetrics) {
        apq = config.apq.enabled ? APQExchange() : nil
        beforeDocument = apq.map { [$0] } ?? []
        var after: [any Exchange] = []
        if config.cache.enabled {
            let settings = config.cache
            let cache = MemoryResponseCache(
                maxBytes: settings.maxBytes, staleWhileRevalidate: settings.staleWhileRevalidate, staleIfError: settings.staleIfError,
                observer: { outcome, bytes in
                    switch outcome {
                    case .hit: metrics.cacheHit()
                    case .miss, .bypass: metrics.cacheMiss()
                    }
                    metrics.cacheBytes(bytes)
                })
            let ttl = CacheTTLPolicy(
                defaultTTL: settings.defaultTTL,
                typeTTLs: Dictionary(settings.types.map { ($0.typeName, $0.ttl) }, uniquingKeysWith: { first, _ in first }))
            let schema = settings.invalidateOnMutation ? EntitySchemaSource() : nil
            let exchange = CacheExchange(cache: cache, settings: CacheExchange.Settings(
                varyHeaders: settings.varyHeaders, ttl: ttl, invalidateOnMutation: settings.invalidateOnMutation, schema: schema))
            after.append(exchange)
            cacheExchange = exchange
            self.cache = cache
            self.schema = schema
        } else {
            cacheExchange = nil
            cache = nil
            schema = nil
        }
        if config.dedupe.enabled { after.append(DedupeExchange(varyHeaders: config.cache.varyHeaders)) }
        afterLimits = after
    }
}
