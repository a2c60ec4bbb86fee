import GQLGateConfig
import GQLGateExchanges
import GQLGateMetrics
import GQLGatePipeline
import GQLGateRedis

/// The exchanges that save upstream work, built from the `apq`, `cache` and
/// `dedupe` settings, for their slots (`PipelineSlot.apq`, `.cache`,
/// `.dedupe`). The cache keeps its answers in memory or, with
/// `cache.backend: redis`, in Redis (on the gateway loops, with wall-clock
/// times shared by every replica); APQ registrations, with `apq.store:
/// redis`, in memory and Redis.
struct CacheAssembly: Sendable {
    /// The APQ exchange, when `apq.enabled`.
    let apq: APQExchange?
    /// The cache exchange, when `cache.enabled`.
    let cacheExchange: CacheExchange?
    /// The dedupe exchange, when `dedupe.enabled`.
    let dedupe: DedupeExchange?
    /// The response cache, when enabled.
    let cache: (any ResponseCacheStore)?
    /// Where the cache reads the upstream schema from, when it tags entities
    /// (`cache.enabled` and `invalidate_on_mutation`): learned by introspection.
    let schema: EntitySchemaSource?

    /// - Parameter apqRegisters: whether APQ may register new text (not while the operation safelist is on).
    /// - Parameter recorder: told the bytes the memory cache holds.
    /// - Parameter redis: the Redis client, when a store uses it.
    init(config: GatewayConfig, apqRegisters: Bool, redis: RedisAssembly?, recorder: GatewayRecorder) {
        apq = config.apq.enabled
            ? APQExchange(shared: Self.sharedQueries(config, redis: redis, recorder: recorder), registers: apqRegisters) : nil
        if config.cache.enabled {
            let settings = config.cache
            let cache = Self.store(config, redis: redis, recorder: recorder)
            let ttl = CacheTTLPolicy(
                defaultTTL: settings.defaultTTL,
                typeTTLs: Dictionary(settings.types.map { ($0.typeName, $0.ttl) }, uniquingKeysWith: { first, _ in first }))
            let schema = settings.invalidateOnMutation ? EntitySchemaSource() : nil
            let exchange = CacheExchange(
                cache: cache,
                settings: CacheExchange.Settings(
                    keyHeaders: config.keyHeaders, ttl: ttl, invalidateOnMutation: settings.invalidateOnMutation, schema: schema))
            cacheExchange = exchange
            self.cache = cache
            self.schema = schema
        } else {
            cacheExchange = nil
            cache = nil
            schema = nil
        }
        dedupe = config.dedupe.enabled
            ? DedupeExchange(keyHeaders: config.keyHeaders, calls: SharedCalls(executor: LoopHooks.currentExecutor)) : nil
    }

    /// The APQ registrations every replica shares, with `apq.store: redis`.
    private static func sharedQueries(_ config: GatewayConfig, redis: RedisAssembly?,
                                      recorder: GatewayRecorder) -> (any SharedPersistedQueries)? {
        guard config.apq.store == .redis, let redis else { return nil }
        return RedisPersistedQueryStore(client: redis.client, keyPrefix: redis.keyPrefix, recorder: recorder)
    }

    /// The store `cache.backend` names.
    private static func store(_ config: GatewayConfig, redis: RedisAssembly?, recorder: GatewayRecorder) -> any ResponseCacheStore {
        let settings = config.cache
        let memory = MemoryResponseCache(
            maxBytes: settings.maxBytes, staleWhileRevalidate: settings.staleWhileRevalidate, staleIfError: settings.staleIfError,
            recorder: recorder)
        guard settings.backend != .memory, let redis else { return memory }
        let shared = RedisResponseCache(
            client: redis.client, keys: redis.cacheKeys, staleWhileRevalidate: settings.staleWhileRevalidate,
            staleIfError: settings.staleIfError, recorder: recorder)
        guard settings.backend == .tiered else { return shared }
        return TieredResponseCache(memory: memory, redis: shared, client: redis.client, channel: redis.keyPrefix + "invalidations",
                                   recorder: recorder)
    }
}
