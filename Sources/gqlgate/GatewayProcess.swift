import GQLGate
import GQLGateConfig
import GQLGateCore
import GQLGateLogging
import Logging

/// Runs one gateway in this process: signals blocked first, serve, reload the
/// configuration on SIGHUP, drain on SIGTERM/SIGINT. Lifecycle and access
/// lines go to stderr, one record a line, from a writer thread of their own.
struct GatewayProcess {
    let config: GatewayConfig
    /// Loads the configuration again on SIGHUP from the sources used at start
    /// (file, environment, flags); nil when there is nothing to re-read.
    var reloadSource: (() throws(ConfigError) -> GatewayConfig)?

    func runUntilTerminated(announce: () -> Void = {}) throws(CommandFailure) {
        Signals.blockTermination()
        let settings = LogSettings(level: config.logging.loggerLevel, format: config.logging.lineFormat)
        let writer = LogLineWriter()
        defer { writer.shutdown() }
        let logger = GatewayLogHandler.logger(settings: settings, writer: writer)
        let gateway: Gateway
        do {
            gateway = try Gateway(
                config: config, exchanges: [], metrics: GatewayMetrics(), logger: logger, accessLog: AccessLogWriter(settings: settings, writer: writer))
        } catch {
            throw .config(error)
        }
        do {
            try gateway.start()
        } catch {
            throw CommandFailure(message: "gqlgate: \(error)", exitCode: 1)
        }
        warnAboutInactiveKeys(config, logger: logger)
        if let problem = ConfigFiles.bearerTokenProblem(config.auth) {
            logger.warning("bearer token file not ready", metadata: [
                "error": "\(problem)", "detail": "upstream requests fail with UPSTREAM_AUTH_FAILED until it holds a token; it is read again once a second",
            ])
        }
        logger.info("listening", metadata: [
            "address": "\(config.server.tls.isEnabled ? "https" : "http")://\(config.server.listen.host):\(gateway.port)\(config.server.path)", "version": "\(GQLGateVersion.current)",
        ])
        if let adminPort = gateway.adminPort, let admin = config.admin.listen {
            logger.info("admin listening", metadata: [
                "address": "http://\(ListenAddress(host: admin.host, port: adminPort))",
                "token": .string(config.admin.tokenFile == nil ? "none (loopback)" : "admin.token_file"),
            ])
        }
        logger.info("upstream", metadata: ["url": "\(URLRedaction.redactingUserInfo(config.upstream.url ?? ""))"])
        writer.flush()
        announce()
        while Signals.wait() == .reload {
            reload(gateway, settings: settings, logger: logger)
        }
        let drainTimeout = gateway.config.server.drainTimeout
        logger.info("draining", metadata: [
            "drain_timeout": "\(ConfigDuration.format(drainTimeout))", "in_flight": .stringConvertible(gateway.requestsInFlight),
        ])
        let outcome = gateway.shutdown(drainTimeout: drainTimeout)
        if outcome.cutShort > 0 {
            logger.warning("drain timed out", metadata: ["answered_shutting_down": .stringConvertible(outcome.cutShort)])
        }
        if !outcome.busyLoops.isEmpty {
            logger.error("loops did not stop", metadata: [
                "loops": .array(outcome.busyLoops.map { .stringConvertible($0) }), "detail": "still busy; exiting without them",
            ])
        }
        logger.info("stopped", metadata: ["server_stopped": .stringConvertible(outcome.stopped)])
    }

    /// SIGHUP: load, validate, apply; on any error keep the running configuration.
    private func reload(_ gateway: Gateway, settings: LogSettings, logger: Logger) {
        guard let reloadSource else {
            logger.warning("reload skipped", metadata: ["reason": "no config file or flags to re-read"])
            return
        }
        let proposed: GatewayConfig
        do {
            proposed = try reloadSource()
        } catch {
            logger.error("reload failed", metadata: ["error": "\(error)", "kept": "the running configuration"])
            return
        }
        let applied: ConfigReload
        do {
            applied = try gateway.reload(proposed)
        } catch {
            logger.error("reload failed", metadata: ["error": "\(error)", "kept": "the running configuration"])
            return
        }
        settings.update(level: applied.effective.logging.loggerLevel, format: applied.effective.logging.lineFormat)
        if !applied.needsRestart.isEmpty {
            logger.warning("needs restart", metadata: ["keys": .array(applied.needsRestart.map { .string($0) })])
        }
        warnAboutInactiveKeys(applied.effective, logger: logger)
        logger.info("reloaded", metadata: ["upstream": "\(URLRedaction.redactingUserInfo(applied.effective.upstream.url ?? ""))"])
    }

    private func warnAboutInactiveKeys(_ config: GatewayConfig, logger: Logger) {
        for key in config.inactiveKeys() {
            logger.warning("inactive key", metadata: ["key": "\(key)", "detail": "parsed but not active in this release"])
        }
    }
}
