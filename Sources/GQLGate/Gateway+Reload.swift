import GQLGateConfig

extension Gateway {
    /// Runs with `proposed` from now on: builds a new pipeline (exchanges,
    /// transport, settings) and swaps it in, so new requests use it while
    /// requests in flight finish on the old one. Settings that take effect
    /// only at start keep their running values (see `ConfigReload`).
    /// - Parameter proposed: a loaded and validated configuration.
    /// - Returns: what was applied, with the keys that wait for a restart.
    @discardableResult
    public func reload(_ proposed: GatewayConfig) -> ConfigReload {
        let running = config
        let reload = ConfigReload(running: running, proposed: proposed)
        pipelines.replace(
            with: Self.makePipeline(config: reload.effective, client: client, exchanges: exchanges, metrics: metrics, readiness: readiness))
        if reload.effective.upstream != running.upstream { readiness.reset() }
        return reload
    }
}
