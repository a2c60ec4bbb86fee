import GQLGateConfig
import GQLGateEventLoop
import GQLGateRedis
import Logging

/// The Redis every store of a configuration keeps its state in (`redis`
/// settings): one client, made with the pipeline when some store uses
/// Redis, shared by all of them.
struct RedisAssembly: Sendable {
    /// The client of `redis.url` (or `cache.redis_url`) with `redis.timeout` and `redis.tls`.
    let client: RedisClient
    /// `redis.key_prefix` (or `cache.redis_key_prefix`).
    let keyPrefix: String
    /// How the URL reaches Redis (a cluster spreads keys over hash-tagged groups).
    let topology: RedisURL.Topology

    /// The client, when some store of `config` uses Redis; throws a
    /// `ConfigError` at the key that is wrong.
    static func make(_ config: GatewayConfig, recorder: GatewayRecorder, loops: EventLoopGroup,
                     logger: Logger) throws(ConfigError) -> RedisAssembly? {
        guard config.usesRedis else { return nil }
        let url = try url(config)
        var settings = RedisClient.Settings(url: url, commandTimeout: config.redis.timeout)
        settings.tls = try tlsCredentials(config, url: url)
        settings.connectTimeout = max(settings.connectTimeout, config.redis.timeout)
        let limit = config.clients.rateLimit
        let cache = config.cache.enabled ? config.cache.backend : nil
        let fallbacks = [cache == .redis ? "cached answers are bypassed" : nil,
                         cache == .tiered ? "answers come from each replica's memory or upstream" : nil,
                         config.apq.enabled && config.apq.store == .redis ? "APQ registrations are per replica" : nil,
                         limit.isEnabled && limit.store == .redis ? "rate limits are per replica" : nil]
        let fallback = fallbacks.compactMap { $0 }.joined(separator: " and ")
        if !fallback.isEmpty { settings.fallback = fallback }
        return RedisAssembly(client: RedisClient(settings: settings, group: loops, logger: logger, recorder: recorder),
                             keyPrefix: config.effectiveRedisKeyPrefix, topology: url.topology)
    }

    /// The rate limit's shared buckets (`clients.rate_limit.store: redis`), in this client.
    func rateLimitStore(recorder: GatewayRecorder, logger: Logger) -> RedisRateLimitStore {
        RedisRateLimitStore(client: client, keyPrefix: keyPrefix, recorder: recorder, logger: logger)
    }

    /// The response cache's key names.
    var cacheKeys: RedisCacheKeys {
        RedisCacheKeys(prefix: keyPrefix, partitions: topology == .cluster ? RedisCacheKeys.clusterPartitions : 1)
    }

    private static func url(_ config: GatewayConfig) throws(ConfigError) -> RedisURL {
        let (text, keyPath) = config.effectiveRedisURL
        do {
            return try RedisURL(parsing: text)
        } catch {
            throw ConfigError.invalid(text, expected: "a Redis URL (\(error))", keyPath: keyPath)
        }
    }

    /// The certificates of `redis.tls`, loaded once for every connection, when
    /// `url` uses TLS; throws at the `redis.tls` key whose file cannot be used.
    private static func tlsCredentials(_ config: GatewayConfig, url: RedisURL) throws(ConfigError) -> RedisTLSCredentials? {
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

    /// Why the Redis the stores would use cannot be reached as configured
    /// (`redis.tls` files), for `check-config`; nil when it can or no store uses Redis.
    static func problem(_ config: GatewayConfig) -> ConfigError? {
        guard config.usesRedis, let url = try? RedisURL(parsing: config.effectiveRedisURL.url) else { return nil }
        do {
            _ = try tlsCredentials(config, url: url)
            return nil
        } catch {
            return error
        }
    }
}
