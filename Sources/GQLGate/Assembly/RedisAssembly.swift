import GQLGateConfig
import GQLGateEventLoop
import GQLGateRedis
import Logging

/// The Redis client the `redis` settings describe, and the key names of
/// the stores kept in it (spread over hash-tagged groups in a cluster).
enum RedisAssembly {
    /// A client of `redis.url` (or `cache.redis_url`) with `redis.timeout`
    /// and `redis.tls`; throws a `ConfigError` at the key that is wrong.
    static func client(_ config: GatewayConfig, recorder: GatewayRecorder, loops: EventLoopGroup,
                       logger: Logger) throws(ConfigError) -> (client: RedisClient, keys: RedisCacheKeys) {
        let (text, keyPath) = config.effectiveRedisURL
        let url: RedisURL
        do {
            url = try RedisURL(parsing: text)
        } catch {
            throw ConfigError.invalid(text, expected: "a Redis URL (\(error))", keyPath: keyPath)
        }
        var settings = RedisClient.Settings(url: url, commandTimeout: config.redis.timeout)
        settings.connectTimeout = max(settings.connectTimeout, config.redis.timeout)
        let client = RedisClient(settings: settings, group: loops, logger: logger, recorder: recorder)
        let partitions = url.topology == .cluster ? RedisCacheKeys.clusterPartitions : 1
        return (client, RedisCacheKeys(prefix: config.effectiveRedisKeyPrefix, partitions: partitions))
    }
}
