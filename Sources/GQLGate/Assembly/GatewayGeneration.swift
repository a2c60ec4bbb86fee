import GQLGateConfig
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
import GQLGateHTTPServer
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateTracing
import GQLGateTransports

/// One generation of the gateway: everything a request reads from the
/// configuration, built once per load (start, and each reload) — the
/// pipeline, its recorder and the settings the endpoint uses. A request takes
/// the current generation when it starts and keeps it to the end, so a
/// reload never changes a request half-way.
final class GatewayGeneration: Sendable {
    /// The configuration it was built from.
    let config: GatewayConfig
    /// The exchanges and the transport.
    let chain: ExchangeChain
    /// The built-in slots the configuration filled, in order.
    let slots: [PipelineSlot]
    /// Repeated cache hits answered from their bytes, when the pipeline allows it (`HitReplayAssembly`).
    let hitReplay: HitReplay?
    /// Records how each client request was answered: metrics, the access line, server spans.
    let recorder: GatewayRecorder
    /// Checks client keys, when `clients.api_keys_file` is set.
    let clientAuth: ClientAuthenticator?
    /// The response cache, when `cache.enabled`.
    let cache: (any ResponseCacheStore)?
    /// The token admin requests need, when the admin listener is on with `admin.token_file`.
    let adminToken: AdminToken?
    /// The upstream WebSockets subscriptions run on; shared with the previous pipeline when they carry over a reload.
    let subscriptions: UpstreamSubscriptions
    /// The schema operations are validated against, when `schema.source` is set;
    /// the next pipeline keeps it when it reads the schema from the same place.
    let schema: GatewaySchema?
    /// Keeps `schema` current from its source.
    let schemaLoading: SchemaLoading?
    /// Learns the upstream schema for the cache's entity tags, when it tags entities and no `schema.source` is set.
    let schemaLearning: SchemaLearning?
    /// The rate limit, circuit breaker and upstream concurrency limit; kept by the next pipeline where their settings stay.
    let traffic: TrafficAssembly
    /// What browser pages on other origins may do, when `cors.allow_origins` is set.
    let cors: CORSPolicy?
    /// The CSRF rule, when `csrf.enabled`.
    let csrf: CSRFRule?
    /// How answers are compressed, when `compression.enabled`.
    let compression: AnswerCompression?
    /// The tracer, when `tracing.enabled` (the recorder makes every span; sessions ask whether there is one).
    let tracer: Tracer?
    /// The client header fields whose values reach the upstream (lower case).
    private let passedOnHeaders: [String]

    init(config: GatewayConfig, chain: ExchangeChain, slots: [PipelineSlot], recorder: GatewayRecorder, clientAuth: ClientAuthenticator?, cache: (any ResponseCacheStore)?,
         subscriptions: UpstreamSubscriptions, schema: GatewaySchema? = nil, schemaLoading: SchemaLoading? = nil, schemaLearning: SchemaLearning?,
         traffic: TrafficAssembly = TrafficAssembly(), tracer: Tracer? = nil, adminToken: AdminToken? = nil,
         hitReplay: HitReplay? = nil) {
        self.config = config
        self.chain = chain
        self.slots = slots
        self.hitReplay = hitReplay
        self.recorder = recorder
        self.clientAuth = clientAuth
        self.cache = cache
        self.subscriptions = subscriptions
        self.schema = schema
        self.schemaLoading = schemaLoading
        self.schemaLearning = schemaLearning
        self.traffic = traffic
        self.tracer = tracer
        self.adminToken = adminToken
        passedOnHeaders = config.headers.passedOnNames
        cors = CORSPolicy(config.cors)
        csrf = CSRFRule(config.csrf)
        compression = AnswerCompression(config.compression)
    }

    /// Whether the client header field `name` reaches the upstream (its value must have no control character).
    func isPassedOn(_ name: String) -> Bool {
        passedOnHeaders.contains { name.equalsIgnoringASCIICase($0) }
    }

    /// Who the client of `request` is, when a stage reads it: its key, else
    /// its TLS client certificate's subject, else its address (server thread).
    func clientID(_ request: ServerRequest) -> String? {
        guard traffic.identifiesClients else { return nil }
        if clientAuth != nil, let key = ClientAuthenticator.presentedKey(in: request.headers) { return key }
        return request.clientCertificateSubject ?? request.clientAddress()
    }

    /// The GraphQL endpoint's path.
    var path: String { config.server.path }

    /// How `/readyz` reaches the upstream.
    var readinessProbe: ReadinessProbe {
        ReadinessProbe(upstream: config.upstream)
    }
}

/// The current generation, replaced whole on reload.
final class CurrentGeneration: Sendable {
    private let slot: Lock<GatewayGeneration>

    init(_ pipeline: GatewayGeneration) {
        slot = Lock(pipeline)
    }

    /// The generation new requests use.
    var current: GatewayGeneration {
        slot.withLock { $0 }
    }

    /// Makes `pipeline` the generation new requests use; requests already running keep theirs.
    func replace(with pipeline: GatewayGeneration) {
        slot.withLock { $0 = pipeline }
    }
}
