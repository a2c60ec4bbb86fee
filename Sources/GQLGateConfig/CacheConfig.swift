/// `cache`: answers to repeated queries served from a cache.
public struct CacheConfig: Sendable, Equatable {
    /// Where cached answers are kept.
    public enum Backend: String, Sendable, Equatable, CaseIterable {
        /// In this process's memory.
        case memory
        /// In the Redis of `redis.url`, shared by every replica.
        case redis
        /// In this process's memory in front of the Redis of `redis.url`: hits
        /// from memory, misses read Redis, purges reach every replica's memory.
        case tiered
    }

    /// One entry of `cache.types`: the time to live of answers holding objects of one type.
    public struct TypeTTL: Sendable, Equatable {
        /// The GraphQL object type name (`Character`).
        public var typeName: String
        /// How long answers holding this type stay fresh.
        public var ttl: Duration

        /// Creates an entry.
        /// - Parameters:
        ///   - typeName: The GraphQL object type name.
        ///   - ttl: How long answers holding this type stay fresh.
        public init(typeName: String, ttl: Duration) {
            self.typeName = typeName
            self.ttl = ttl
        }
    }

    /// `cache.enabled`: cache query answers. Default false.
    public var enabled = false
    /// `cache.backend`: `memory`, `redis` or `tiered`. Default `memory`.
    public var backend = Backend.memory
    /// `cache.redis_url`: the first release's key for `redis.url`, still read when
    /// `redis.url` is not set. Default none.
    public var redisURL: String?
    /// `cache.redis_key_prefix`: the first release's key for `redis.key_prefix`, still read when
    /// `redis.key_prefix` is not set. Default none.
    public var redisKeyPrefix: String?
    /// `cache.max_bytes`: the most the cache holds. Default 64 MiB.
    public var maxBytes = 64 << 20
    /// `cache.default_ttl`: the time to live of types not listed in `types`. Default 30s.
    public var defaultTTL = Duration.seconds(30)
    /// `cache.types`: time to live per GraphQL object type, in file order; an answer lives as long as
    /// the shortest-lived type it holds. Default: none.
    public var types: [TypeTTL] = []
    /// `cache.vary_headers`: client headers whose values scope the cache, lowercased. Default `[authorization]`.
    public var varyHeaders = ["authorization"]
    /// `cache.stale_while_revalidate`: serve an expired answer this long while one refresh runs. Default 0s.
    public var staleWhileRevalidate = Duration.zero
    /// `cache.stale_if_error`: serve an expired answer this long when the upstream fails. Default 0s.
    public var staleIfError = Duration.zero
    /// `cache.invalidate_on_mutation`: a mutation's answer purges cached answers holding the same
    /// entities. Default true.
    public var invalidateOnMutation = true

    /// The defaults.
    public init() {}
}

extension CacheConfig {
    static let keys = [
        "enabled", "backend", "redis_url", "redis_key_prefix", "max_bytes", "default_ttl", "types", "vary_headers",
        "stale_while_revalidate", "stale_if_error", "invalidate_on_mutation",
    ]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
        backend = try map["backend"]?.oneOf(Backend.self) ?? backend
        if let url = try map["redis_url"]?.string(), !url.isEmpty { redisURL = url }
        if let prefix = try map["redis_key_prefix"]?.string(), !prefix.isEmpty { redisKeyPrefix = prefix }
        maxBytes = try map["max_bytes"]?.size(minimum: 1) ?? maxBytes
        defaultTTL = try map["default_ttl"]?.duration() ?? defaultTTL
        if let types = map["types"] {
            for (name, ttl) in try types.entries(expected: "a mapping of GraphQL type names to durations") {
                guard name.isIdentifier else { throw ConfigError.invalid(name, expected: "a GraphQL type name", keyPath: ttl.path) }
                self.types.append(TypeTTL(typeName: name, ttl: try ttl.duration()))
            }
        }
        varyHeaders = try map["vary_headers"]?.headerNames() ?? varyHeaders
        staleWhileRevalidate = try map["stale_while_revalidate"]?.duration() ?? staleWhileRevalidate
        staleIfError = try map["stale_if_error"]?.duration() ?? staleIfError
        invalidateOnMutation = try map["invalidate_on_mutation"]?.bool() ?? invalidateOnMutation
    }
}
