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
        settings.tls = try tlsCredentials(config, url: url)
        settings.connectTimeout = max(settings.connectTimeout, config.redis.timeout)
        let client = RedisClient(settings: settings, group: loops, logger: logger, recorder: recorder)
        let partitions = url.topology == .cluster ? RedisCacheKeys.clusterPartitions : 1
        return (client, RedisCacheKeys(prefix: config.effectiveRedisKeyPrefix, partitions: partitions))
    }

    /// The certificates of `redis.tls`, loaded once for every connection, when
    /// `url` uses TLS; throws at the `redis.tls` key whose file cannot be used.
    static func tlsCredentials(_ config: GatewayConfig, url: RedisURL) throws(ConfigError) -> RedisTLSCredentials? {
        guard url.tls else { return nil }
        let tls = config.redis.tls
        do {
            return try RedisTLSCredentials(caFile: tls.caFile ?? "", certFile: tls.certFile ?? "", keyFile: tls.keyFile ?? "",
                                           serverName: tls.serverName ?? "")
        } catch {
            let message = "\(error)"
            let key = message.contains("cannot read key file") ? "key_file"
                : message.contains("certificate file") ? "cert_file" : "ca_file"
            throw ConfigError(keyPath: "redis.tls.\(key)", message: message)
        }
    }

    /// Why the Redis the cache would use cannot be reached as configured
    /// (`redis.tls` files), for `check-config`; nil when it can or no store uses Redis.
    static func problem(_ config: GatewayConfig) -> ConfigError? {
        guard config.cache.enabled, config.cache.backend == .redis,
              let url = try? RedisURL(parsing: config.effectiveRedisURL.url) else { return nil }
        do {
            _ = try tlsCredentials(config, url: url)
            return nil
        } catch {
            return error
        }
    }
}
