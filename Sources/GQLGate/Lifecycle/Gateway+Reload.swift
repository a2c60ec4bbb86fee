import GQLGateConfig

extension Gateway {
    /// Runs with `proposed` from now on: builds a new pipeline (exchanges,
    /// transport, settings) and swaps it in, so new requests use it while
    /// requests in flight finish on the old one. Settings that take effect
    /// only at start keep their running values (see `ConfigReload`).
    /// The response cache and upstream tokens start afresh with the new
    /// pipeline, and the upstream schema is learned again; the schema held for
    /// validation stays while `schema` does (its file is read again). Live subscriptions
    /// keep their upstream connections unless an `upstream`, `auth`,
    /// `subscriptions` or `cache.vary_headers` key changed; then they get
    /// `complete` and their connections close. With TLS, the certificate, key
    /// and client CA files are read again (`TLSFiles`).
    /// - Parameter proposed: a loaded and validated configuration.
    /// - Returns: what was applied, with the keys that wait for a restart.
    /// - Throws: `ConfigError` when the configuration that would run is invalid
    ///   (say, beyond loopback without client keys) or a file it names cannot
    ///   be used; the running pipeline stays.
    @discardableResult
    public func reload(_ proposed: GatewayConfig) throws(ConfigError) -> ConfigReload {
        let previous = generations.current
        let running = previous.config
        let reload = ConfigReload(running: running, proposed: proposed)
        try reload.effective.validate()
        let pipeline = try Self.makePipeline(
            config: reload.effective, client: client, exchanges: exchanges, metrics: metrics, requestLog: requestLog,
            readiness: readiness, spanExport: spanExport,
            subscriptions: SubscriptionContext(loops: loops, logger: logger, previous: previous))
        server.readHeadersOnDemand(pipeline.hitReplay != nil)
        generations.replace(with: pipeline)
        if pipeline.subscriptions !== previous.subscriptions { previous.subscriptions.shutdown() }
        previous.schemaLearning?.stop()
        previous.schemaLoading?.stop()
        pipeline.schemaLearning?.start(logger: logger)
        pipeline.schemaLoading?.start()
        if reload.effective.upstream != running.upstream { readiness.reset() }
        if let tlsFiles { log(tlsFiles.reload(reload.effective.server.tls), trigger: "reload") }
        return reload
    }
}
