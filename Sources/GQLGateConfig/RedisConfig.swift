/// `redis`: the Redis every store kept in Redis uses (the response cache
/// with `cache.backend: redis` or `tiered`, APQ registrations with `apq.store: redis`, the rate
/// limit with `clients.rate_limit.store: redis`).
public struct RedisConfig: Sendable, Equatable {
    /// `redis.tls`: certificates for `rediss` URLs.
    public struct TLS: Sendable, Equatable {
        /// `redis.tls.ca_file`: the CA certificates (PEM) the server's certificate is checked
        /// against. Default none: the system's trust store.
        public var caFile: String?
        /// `redis.tls.cert_file`: a client certificate (PEM), for servers that ask for one. Default none.
        public var certFile: String?
        /// `redis.tls.key_file`: the client certificate's key (PEM). Default none.
        public var keyFile: String?
        /// `redis.tls.server_name`: the name the server's certificate must carry (and SNI).
        /// Default none: the host of the URL.
        public var serverName: String?

        /// The defaults.
        public init() {}
    }

    /// `redis.url`: `redis://`, `rediss://`, `redis-sentinel://…/MASTER` or
    /// `redis-cluster://seeds`. Default none: `cache.redis_url`, else `redis://127.0.0.1:6379`.
    public var url: String?
    /// `redis.key_prefix`: the start of every key gqlgate writes; gateways
    /// share only under the same prefix. Default `gqlgate:` (`cache.redis_key_prefix`, when set, is read instead).
    public var keyPrefix = "gqlgate:"
    /// `redis.timeout`: how long a command may take; a slower one counts as
    /// Redis unavailable (the store falls back). Default 250ms.
    public var timeout: Duration = .milliseconds(250)
    /// `redis.tls`.
    public var tls = TLS()

    /// The defaults.
    public init() {}
}

extension RedisConfig {
    static let keys = ["url", "key_prefix", "timeout", "tls"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        if let url = try map["url"]?.string(), !url.isEmpty { self.url = url }
        keyPrefix = try map["key_prefix"]?.string() ?? keyPrefix
        timeout = try map["timeout"]?.duration(positive: true) ?? timeout
        if let tls = map["tls"] {
            let map = try tls.mapping(allowed: ["ca_file", "cert_file", "key_file", "server_name"])
            func text(_ key: String) throws(ConfigError) -> String? {
                guard let value = try map[key]?.string(), !value.isEmpty else { return nil }
                return value
            }
            self.tls.caFile = try text("ca_file")
            self.tls.certFile = try text("cert_file")
            self.tls.keyFile = try text("key_file")
            self.tls.serverName = try text("server_name")
        }
    }
}

extension GatewayConfig {
    /// Whether some store keeps its state in Redis (`cache.backend: redis` or `tiered`,
    /// `apq.store: redis`, `clients.rate_limit.store: redis`).
    public var usesRedis: Bool {
        cache.enabled && cache.backend != .memory || (apq.enabled && apq.store == .redis)
            || (clients.rateLimit.isEnabled && clients.rateLimit.store == .redis)
    }

    /// The Redis URL the stores use and the key it was set under: `redis.url`,
    /// else `cache.redis_url` (the first release's key), else a local Redis.
    public var effectiveRedisURL: (url: String, keyPath: String) {
        if let url = redis.url { return (url, "redis.url") }
        if let url = cache.redisURL { return (url, "cache.redis_url") }
        return ("redis://127.0.0.1:6379", "redis.url")
    }

    /// The prefix of every Redis key: `cache.redis_key_prefix` (the first release's key) when set, else `redis.key_prefix`.
    public var effectiveRedisKeyPrefix: String { cache.redisKeyPrefix ?? redis.keyPrefix }
}
