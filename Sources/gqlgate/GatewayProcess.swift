import GQLGate
import GQLGateConfig

/// Runs one gateway in this process: signals blocked first, serve, drain on
/// SIGTERM/SIGINT.
struct GatewayProcess {
    let config: GatewayConfig

    func runUntilTerminated(announce: () -> Void = {}) throws(CommandFailure) {
        try refuseUnauthenticatedExposure()
        Signals.blockTermination()
        let gateway = Gateway(config: config)
        do {
            try gateway.start()
        } catch {
            throw CommandFailure(message: "gqlgate: \(error)", exitCode: 1)
        }
        for key in config.inactiveKeys() {
            FileHandleOutput.standardError("gqlgate: warning: \(key) is parsed but not active in this release")
        }
        FileHandleOutput.standardError(
            "gqlgate \(GQLGateVersion.current) listening on http://\(config.server.listen.host):\(gateway.port)\(config.server.path)"
                + " → upstream \(config.upstream.url ?? "")")
        announce()
        while Signals.wait() != .terminate {
            FileHandleOutput.standardError("gqlgate: SIGHUP received; configuration reload is not available in this release")
        }
        FileHandleOutput.standardError("gqlgate: draining (up to \(config.server.drainTimeout))")
        gateway.shutdown(drainTimeout: config.server.drainTimeout)
    }

    /// Client API keys are not checked in this release, so `clients.api_keys_file`
    /// cannot stand in for authentication: beyond loopback only
    /// `clients.allow_anonymous: true` may open the gateway.
    private func refuseUnauthenticatedExposure() throws(CommandFailure) {
        guard !config.server.listen.isLoopback, !config.clients.allowAnonymous else { return }
        throw .config(ConfigError(
            keyPath: "clients.allow_anonymous",
            message: "listening on \(config.server.listen) (beyond loopback) needs client authentication, which this release "
                + "does not check yet (clients.api_keys_file is parsed only); set clients.allow_anonymous: true to accept anonymous clients"))
    }
}
