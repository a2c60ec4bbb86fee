import GQLGate
import GQLGateConfig

/// Runs one gateway in this process: signals blocked first, serve, drain on
/// SIGTERM/SIGINT.
struct GatewayProcess {
    let config: GatewayConfig

    func runUntilTerminated(announce: () -> Void = {}) throws(CommandFailure) {
        Signals.blockTermination()
        let gateway: Gateway
        do {
            gateway = try Gateway(config: config)
        } catch {
            throw .config(error)
        }
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
}
