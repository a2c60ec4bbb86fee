public import GQLGateConfig
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import GQLGateHTTPServer
package import GQLGateLogging
public import GQLGateMetrics
@_spi(GQLGateInternals) public import GQLGatePipeline
import GQLGateTransports
public import Logging

/// A running gqlgate: the HTTP server, the gateway loops, the upstream client
/// and the exchange pipeline, assembled from a `GatewayConfig`.
///
/// ```swift
/// let gateway = try Gateway(config: config, exchanges: [.before(.cache, LoggingExchange())])
/// try gateway.start()
/// ```
public final class Gateway: Sendable {
    /// The gateway's metrics, rendered at `GET /metrics` (and by `metrics.render()`).
    public let metrics: GatewayMetrics
    let loops: EventLoopGroup
    let server: HTTPServer
    let client: HTTPClient
    let endpoint: GraphQLEndpoint
    let generations: CurrentGeneration
    let readiness: Readiness
    let inFlight = InFlightRequests()
    let exchanges: [ExchangePlacement]
    /// Where answered requests are recorded (metrics, access lines).
    let requestLog: RequestLog
    /// Where finished spans wait for export (idle while tracing is off).
    let spanExport: SpanExport
    let logger: Logger
    /// Logs a loop busy past `loopBusyThreshold`, with the request it works for.
    let watchdog: LoopWatchdog
    /// The `server.tls` files, when TLS is on; watched from `start()` (see `Gateway+TLS`).
    let tlsFiles: TLSFiles?
    /// The task that looks for changed `server.tls` files once a second.
    let tlsWatch = Lock<Task<Void, Never>?>(nil)
    /// The admin API and its listener, when `admin.listen` is set (see `AdminEndpoint`).
    let admin: (endpoint: AdminEndpoint, server: HTTPServer)?

    /// How long a loop may run work without waiting for events before it is
    /// logged: a healthy loop's work takes microseconds, and every document's
    /// analysis is linear in its size (at most `limits.max_document_bytes`).
    static let loopBusyThreshold = Duration.seconds(1)

    /// Builds the gateway; nothing listens until `start()`.
    /// - Parameters:
    ///   - config: the effective configuration; `upstream.url` must be set.
    ///   - exchanges: your own exchanges, each placed before or after a
    ///     built-in slot (`PipelineSlot`), e.g. `.before(.cache, LoggingExchange())`.
    ///   - metrics: where the gateway's metrics are recorded.
    ///   - logger: where the log and the access lines go (one per request, at `info`).
    /// - Throws: `ConfigError` when a file the config names cannot be used.
    public convenience init(config: GatewayConfig, exchanges: [ExchangePlacement] = [], metrics: GatewayMetrics = GatewayMetrics(),
                            logger: Logger = Logger(label: "gqlgate")) throws(ConfigError) {
        try self.init(config: config, exchanges: exchanges, metrics: metrics, logger: logger, accessLog: nil)
    }

    /// `init(config:exchanges:metrics:logger:)`, with access lines written by
    /// `accessLog` when it is set: gqlgate's own writer, which writes the same
    /// lines as a `GatewayLogHandler` at a fraction of the cost (the command's).
    package init(config: GatewayConfig, exchanges: [ExchangePlacement], metrics: GatewayMetrics, logger: Logger,
                 accessLog: AccessLogWriter?) throws(ConfigError) {
        self.metrics = metrics
        self.exchanges = exchanges
        self.logger = logger
        loops = EventLoopGroup(count: config.server.eventLoopCount(cores: EventLoopGroup.coreCount))
        client = HTTPClient(group: loops, maxBytesInFlight: config.upstream.maxResponseBytesInFlight)
        watchdog = LoopWatchdog(group: loops, threshold: Self.loopBusyThreshold) { [logger] busy in
            var metadata: Logger.Metadata = ["loop": .stringConvertible(busy.index), "busy_ms": .stringConvertible(busy.busy.milliseconds)]
            if let requestID = busy.requestID { metadata["request_id"] = .string(requestID) }
            logger.warning("loop busy", metadata: metadata)
        }
        readiness = Readiness(client: client)
        requestLog = RequestLog(metrics: metrics, sink: accessLog.map { .writer($0) } ?? .logger(logger))
        spanExport = SpanExport(client: client, metrics: metrics, destination: SpanExport.Destination(
            endpoint: config.tracing.endpoint, headers: config.tracing.headers, serviceName: config.tracing.serviceName))
        generations = CurrentGeneration(
            try Self.makePipeline(
                config: config, client: client, exchanges: exchanges, metrics: metrics, requestLog: requestLog, readiness: readiness,
                spanExport: spanExport,
                subscriptions: SubscriptionContext(loops: loops, logger: logger, previous: nil)))
        endpoint = GraphQLEndpoint(
            generations: generations, loops: loops, maxBodyBytes: config.server.maxBodyBytes,
            operations: OperationsEndpoints(readiness: readiness, metrics: metrics),
            requestLog: requestLog,
            inFlight: inFlight, logger: logger)
        tlsFiles = try TLSFiles(config.server.tls)
        server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: config.server.listen.host, port: config.server.listen.port, threads: config.server.httpThreadCount,
                maxBodyBytes: config.server.maxBodyBytes, idleTimeoutSeconds: Int(config.server.idleTimeout.components.seconds),
                headerTimeoutSeconds: Int(config.server.headerTimeout.components.seconds),
                bodyTimeoutSeconds: Int(config.server.bodyTimeout.components.seconds),
                writeTimeoutSeconds: Int(config.server.writeTimeout.components.seconds), connectionLimit: config.server.maxConnections,
                connectionMemoryBytes: config.server.maxHeaderBytes, tls: tlsFiles?.store),
            delegate: endpoint)
        // A repeated hit is answered from the header fields' bytes (`ReplayKey`): none read as strings.
        server.readHeadersOnDemand(generations.current.hitReplay != nil)
        if let listen = config.admin.listen {
            let endpoint = AdminEndpoint(generations: generations, loops: loops, logger: logger)
            admin = (endpoint, HTTPServer(configuration: Self.adminServerConfiguration(listen), delegate: endpoint))
        } else {
            admin = nil
        }
    }

    /// The admin listener: one thread, small bodies, few connections, plain HTTP.
    static func adminServerConfiguration(_ listen: ListenAddress) -> HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: listen.host, port: listen.port, threads: 1, maxBodyBytes: AdminEndpoint.maxBodyBytes, idleTimeoutSeconds: 60,
            headerTimeoutSeconds: 10, bodyTimeoutSeconds: 10, writeTimeoutSeconds: 30, connectionLimit: 64, connectionMemoryBytes: 16 << 10)
    }

    /// The configuration it runs with (the last one applied by `reload`).
    public var config: GatewayConfig { generations.current.config }

    /// Binds the listen address (and the admin listener's, when
    /// `admin.listen` is set) and starts serving; with the cache tagging
    /// entities, starts learning the upstream schema; with TLS, starts
    /// watching the certificate files.
    public func start() throws(GatewayStartError) {
        do {
            try server.start()
        } catch {
            throw GatewayStartError(message: error.message)
        }
        if let admin {
            do {
                try admin.server.start()
            } catch {
                throw GatewayStartError(message: "admin.listen: \(error.message)")
            }
        }
        generations.current.schemaLearning?.start(logger: logger)
        generations.current.schemaLoading?.start()
        watchTLSFiles()
    }

    /// The port the server listens on.
    public var port: UInt16 { server.port }

    /// The port the admin listener listens on; nil without `admin.listen`.
    public var adminPort: UInt16? { admin?.server.port }
}
