import GQLGateConfig
import GQLGateExchanges
import GQLGateHTTPClient
import GQLGateMetrics
import GQLGatePipeline
import GQLGateTracing
import GQLGateTransports

extension Gateway {
    /// The pipeline and settings for `config`, built at start and again on
    /// every reload: the one place the built-in stages are chosen and put in
    /// their slots (in `PipelineSlot`'s order), with `exchanges` placed
    /// around them.
    static func makePipeline(config: GatewayConfig, client: HTTPClient, exchanges: [ExchangePlacement], metrics: GatewayMetrics,
                             requestLog: RequestLog, readiness: Readiness, spanExport: SpanExport,
                             subscriptions context: SubscriptionContext) throws(ConfigError) -> GatewayGeneration {
        let tracer = tracer(config.tracing, export: spanExport)
        let recorder = GatewayRecorder(
            metrics: metrics, readiness: readiness, log: requestLog, tracing: tracer.map { ($0, config) }, logger: context.logger)
        let documents = DocumentCache()
        // The schema held carries over a reload that reads it from the same place.
        let schema = config.schema.effectiveSource.map { source in
            context.previous.flatMap { $0.config.schema.effectiveSource == source && $0.config.schema.file == config.schema.file ? $0.schema : nil }
                ?? GatewaySchema()
        }
        let persisted = try PersistedDocumentsAssembly(config: config, cache: documents, schema: schema, logger: context.logger)
        let redis = try RedisAssembly.make(config, recorder: recorder, loops: context.loops, logger: context.logger)
        let caching = CacheAssembly(config: config, apqRegisters: persisted.apqRegisters, redis: redis, recorder: recorder)
        let traffic = TrafficAssembly(config: config, client: client, redis: redis, loop: context.loops.next(), recorder: recorder,
                                      logger: context.logger, previous: context.previous)
        var builder = PipelineBuilder()
        if let rateLimit = traffic.rateLimit { builder.fill(.rateLimit, with: rateLimit) }
        if let byID = persisted.byID { builder.fill(.persistedDocuments, with: byID) }
        if let apq = caching.apq { builder.fill(.apq, with: apq) }
        builder.fill(.document, with: DocumentExchange(
            cache: documents, maxDocumentBytes: config.limits.maxDocumentBytes, runAnalysis: LoopHooks.documentAnalysis))
        if let safelist = persisted.safelist { builder.fill(.safelist, with: safelist) }
        builder.fill(.methodRules, with: HTTPMethodRulesExchange())
        builder.fill(.limits, with: QueryLimitsExchange(limits: .init(maxDepth: config.limits.maxDepth, maxAliases: config.limits.maxAliases)))
        if let schema { builder.fill(.validation, with: ValidationExchange(schema: schema, enforcing: config.schema.validate)) }
        if let schema, config.demandControl.isEnabled {
            builder.fill(.demandControl, with: DemandControlExchange(schema: schema, settings: DemandControlSettings(config.demandControl)))
        }
        if let costRateLimit = traffic.costRateLimit { builder.fill(.costRateLimit, with: costRateLimit) }
        if let schema, config.metrics.fieldUsage {
            builder.fill(.fieldUsage, with: FieldUsageExchange(schema: schema, clientNameHeader: config.metrics.clientNameHeader))
        }
        if let cache = caching.cacheExchange { builder.fill(.cache, with: cache) }
        if let dedupe = caching.dedupe { builder.fill(.dedupe, with: dedupe) }
        if config.apq.upstream { builder.fill(.upstreamAPQ, with: UpstreamAPQExchange()) }
        var credentials: UpstreamAuthExchange?
        if config.auth.addsCredentials {
            let exchange = UpstreamAuthExchange(config.auth, client: client, upstream: config.upstream, recorder: recorder,
                                                logger: context.logger)
            credentials = exchange
            builder.fill(.credentials, with: exchange)
        }
        if config.retry.maxAttempts > 1 {
            builder.fill(.retry, with: RetryExchange(
                policy: RetryPolicy(config.retry), budget: RetryBudget(ratio: config.retry.budget), sleep: LoopHooks.sleep))
        }
        if let breaker = traffic.circuitBreaker { builder.fill(.circuitBreaker, with: breaker) }
        if let concurrency = traffic.concurrency { builder.fill(.upstreamConcurrency, with: concurrency) }
        builder.place(exchanges)

        let transport = HTTPTransport(
            client: client,
            settings: HTTPTransport.Settings(
                url: config.upstream.url ?? "", timeout: config.upstream.timeout, connectTimeout: config.upstream.connectTimeout,
                forwardedHeaders: config.headers.forwardedNames,
                compression: config.upstream.compression.asks(upstreamURL: config.upstream.url ?? ""),
                maxResponseBytes: config.upstream.maxResponseBytes))
        let subscriptions = context.transport(config: config, client: client, recorder: recorder, credentials: credentials)
        subscriptions.connectGate.set(traffic.connectWait)
        let chain = builder.build(transport: SplitTransport(http: transport, subscriptions: subscriptions))
        let introspection = schemaLearningBuilder(from: builder).build(transport: transport)
        let schemaLoading = schema.map { schema in
            SchemaLoading(settings: config.schema, schema: schema, chain: introspection, entities: caching.schema,
                          persistedDocuments: persisted.library, recorder: recorder, logger: context.logger)
        }
        if config.schema.effectiveSource == .file { try schemaLoading?.loadFile() }
        let schemaLearning = schemaLoading != nil ? nil : caching.schema.map { SchemaLearning(chain: introspection, source: $0) }
        let hitReplay = HitReplayAssembly.make(config: config, builder: builder, cache: caching.cache, tracer: tracer, schema: schema)
        return GatewayGeneration(
            config: config, chain: chain, slots: builder.filledSlots, recorder: recorder, clientAuth: try clientAuthenticator(config.clients), cache: caching.cache,
            subscriptions: subscriptions, schema: schema, schemaLoading: schemaLoading, schemaLearning: schemaLearning, traffic: traffic,
            tracer: tracer, adminToken: try adminToken(config.admin), hitReplay: hitReplay)
    }

    /// The admin API's token, read now, when the admin listener is on with
    /// `admin.token_file` (at start and on every reload).
    static func adminToken(_ admin: AdminConfig) throws(ConfigError) -> AdminToken? {
        guard admin.isEnabled, let path = admin.tokenFile else { return nil }
        do {
            return try AdminToken(file: path)
        } catch {
            throw ConfigError(keyPath: "admin.token_file", message: error.description)
        }
    }

    /// The pipeline introspection queries take: their own document stage,
    /// then the same credentials and retries as clients' operations.
    private static func schemaLearningBuilder(from builder: PipelineBuilder) -> PipelineBuilder {
        var learning = PipelineBuilder()
        learning.fill(.document, with: DocumentExchange(cache: DocumentCache(capacity: 1), runAnalysis: LoopHooks.documentAnalysis))
        for slot in [PipelineSlot.credentials, .retry] {
            if let stage = builder.stage(in: slot) { learning.fill(slot, with: stage) }
        }
        return learning
    }

    /// The tracer for `tracing`, nil when it is off; on, spans go to its endpoint.
    private static func tracer(_ tracing: TracingConfig, export: SpanExport) -> Tracer? {
        guard tracing.enabled else { return nil }
        export.send(to: SpanExport.Destination(endpoint: tracing.endpoint, headers: tracing.headers, serviceName: tracing.serviceName))
        export.start()
        return Tracer(sampler: Sampler(ratio: tracing.sampleRatio), queue: export.queue)
    }

    static func clientAuthenticator(_ clients: ClientsConfig) throws(ConfigError) -> ClientAuthenticator? {
        guard let path = clients.apiKeysFile else { return nil }
        do {
            return try ClientAuthenticator(apiKeysFile: path)
        } catch {
            throw ConfigError(keyPath: "clients.api_keys_file", message: "\(error)")
        }
    }
}
