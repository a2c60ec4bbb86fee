/// The whole gqlgate configuration: one value per section of the config file.
///
/// `GatewayConfig()` is the configuration with every default. ``ConfigLoader`` reads one from YAML,
/// ``applying(_:)`` lays flags and environment variables over it, and ``validate()`` checks the
/// rules that involve several keys.
public struct GatewayConfig: Sendable, Equatable {
    /// `server`: where and how gqlgate accepts client connections.
    public var server = ServerConfig()
    /// `upstream`: the GraphQL API behind gqlgate.
    public var upstream = UpstreamConfig()
    /// `auth`: the credentials gqlgate adds to upstream requests.
    public var auth = AuthConfig()
    /// `headers`: which client headers are passed upstream.
    public var headers = HeadersConfig()
    /// `clients`: who may use gqlgate.
    public var clients = ClientsConfig()
    /// `retry`: which upstream requests are retried.
    public var retry = RetryConfig()
    /// `cache`: the query answer cache.
    public var cache = CacheConfig()
    /// `redis`: the Redis the stores kept in Redis use.
    public var redis = RedisConfig()
    /// `dedupe`: sharing identical in-flight queries.
    public var dedupe = DedupeConfig()
    /// `apq`: automatic persisted queries.
    public var apq = APQConfig()
    /// `persisted_documents`: operations sent by id, and the operation safelist.
    public var persistedDocuments = PersistedDocumentsConfig()
    /// `limits`: document size and complexity limits.
    public var limits = LimitsConfig()
    /// `schema`: the upstream's schema, for validation at the edge.
    public var schema = SchemaConfig()
    /// `demand_control`: operations' estimated costs, measured or enforced.
    public var demandControl = DemandControlConfig()
    /// `subscriptions`: subscription transport settings.
    public var subscriptions = SubscriptionsConfig()
    /// `logging`: log level and format.
    public var logging = LoggingConfig()
    /// `metrics`: the Prometheus endpoint.
    public var metrics = MetricsConfig()
    /// `cors`: browser origins allowed to call gqlgate.
    public var cors = CORSConfig()
    /// `csrf`: refusing requests a browser could send cross-site unasked.
    public var csrf = CSRFConfig()
    /// `tracing`: OpenTelemetry spans.
    public var tracing = TracingConfig()
    /// `compression`: compressed answers for clients that accept them.
    public var compression = CompressionConfig()
    /// `admin`: the admin API on a listener of its own.
    public var admin = AdminConfig()

    /// The configuration with every default.
    public init() {}
}

extension GatewayConfig {
    static let keys = [
        "server", "upstream", "auth", "headers", "clients", "retry", "cache", "redis", "dedupe", "apq", "persisted_documents", "limits",
        "schema", "demand_control", "subscriptions", "logging", "metrics", "cors", "csrf", "tracing", "compression",
        "admin",
    ]

    /// Reads the document root; absent and null sections keep their defaults.
    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        server = try map["server"].map(ServerConfig.init(yaml:)) ?? server
        upstream = try map["upstream"].map(UpstreamConfig.init(yaml:)) ?? upstream
        auth = try map["auth"].map(AuthConfig.init(yaml:)) ?? auth
        headers = try map["headers"].map(HeadersConfig.init(yaml:)) ?? headers
        clients = try map["clients"].map(ClientsConfig.init(yaml:)) ?? clients
        retry = try map["retry"].map(RetryConfig.init(yaml:)) ?? retry
        cache = try map["cache"].map(CacheConfig.init(yaml:)) ?? cache
        redis = try map["redis"].map(RedisConfig.init(yaml:)) ?? redis
        dedupe = try map["dedupe"].map(DedupeConfig.init(yaml:)) ?? dedupe
        apq = try map["apq"].map(APQConfig.init(yaml:)) ?? apq
        persistedDocuments = try map["persisted_documents"].map(PersistedDocumentsConfig.init(yaml:)) ?? persistedDocuments
        limits = try map["limits"].map(LimitsConfig.init(yaml:)) ?? limits
        schema = try map["schema"].map(SchemaConfig.init(yaml:)) ?? schema
        demandControl = try map["demand_control"].map(DemandControlConfig.init(yaml:)) ?? demandControl
        subscriptions = try map["subscriptions"].map(SubscriptionsConfig.init(yaml:)) ?? subscriptions
        logging = try map["logging"].map(LoggingConfig.init(yaml:)) ?? logging
        metrics = try map["metrics"].map(MetricsConfig.init(yaml:)) ?? metrics
        cors = try map["cors"].map(CORSConfig.init(yaml:)) ?? cors
        csrf = try map["csrf"].map(CSRFConfig.init(yaml:)) ?? csrf
        tracing = try map["tracing"].map(TracingConfig.init(yaml:)) ?? tracing
        compression = try map["compression"].map(CompressionConfig.init(yaml:)) ?? compression
        admin = try map["admin"].map(AdminConfig.init(yaml:)) ?? admin
    }
}
