import GQLGateConfig
import GQLGateEventLoop
import GQLGateExchanges
import GQLGateHTTPClient
import GQLGateHTTPServer
import GQLGatePipeline

#if canImport(Glibc)
import Glibc
#endif

/// A running gqlgate: the HTTP server, the gateway loops, the upstream client
/// and the exchange pipeline, assembled from a `GatewayConfig`.
///
/// ```swift
/// let gateway = try Gateway(config: config, exchanges: [LoggingExchange()])
/// try gateway.start()
/// ```
public final class Gateway: Sendable {
    /// The configuration it runs with.
    public let config: GatewayConfig
    private let loops: EventLoopGroup
    private let server: HTTPServer
    let caching: CachingStages

    /// Builds the gateway; nothing listens until `start()`.
    /// - Parameters:
    ///   - config: the effective configuration; `upstream.url` must be set.
    ///   - exchanges: your own exchanges, run after the built-in request
    ///     stages (APQ, document analysis, method rules, limits, cache,
    ///     dedupe) and before the upstream stages (credentials, retries)
    ///     and the transport.
    /// - Throws: `ConfigError` when a file the config names cannot be used.
    public init(config: GatewayConfig, exchanges: [any Exchange] = []) throws(ConfigError) {
        self.config = config
        loops = EventLoopGroup(count: config.server.eventLoopCount(cores: EventLoopGroup.coreCount))
        let client = HTTPClient(group: loops)
        let transport = HTTPTransport(client: client, settings: HTTPTransport.Settings(
            url: config.upstream.url ?? "", timeout: config.upstream.timeout, connectTimeout: config.upstream.connectTimeout,
            forwardedHeaders: config.headers.forward + (config.headers.forwardClientAuthorization ? ["authorization"] : [])))
        caching = CachingStages(config: config)
        let builtIn: [any Exchange] = caching.beforeDocument + [
            DocumentExchange(cache: DocumentCache(), maxDocumentBytes: config.limits.maxDocumentBytes),
            HTTPMethodRulesExchange(),
            QueryLimitsExchange(limits: .init(maxDepth: config.limits.maxDepth, maxAliases: config.limits.maxAliases)),
        ] + caching.afterLimits
        let upstreamStages: [any Exchange] = [
            UpstreamAuthExchange(config.auth, client: client, upstream: config.upstream),
            RetryExchange(policy: RetryPolicy(config.retry), budget: RetryBudget(ratio: config.retry.budget)),
        ]
        let chain = ExchangeChain(exchanges: builtIn + exchanges + upstreamStages, transport: transport)
        let endpoint = GraphQLEndpoint(
            path: config.server.path, chain: chain, loops: loops, maxBodyBytes: config.server.maxBodyBytes,
            clientAuth: try Self.clientAuthenticator(config.clients))
        server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: config.server.listen.host, port: config.server.listen.port, threads: config.server.httpThreadCount,
                maxBodyBytes: config.server.maxBodyBytes),
            delegate: endpoint)
    }

    private static func clientAuthenticator(_ clients: ClientsConfig) throws(ConfigError) -> ClientAuthenticator? {
        guard let path = clients.apiKeysFile else { return nil }
        do {
            return try ClientAuthenticator(apiKeysFile: path)
        } catch {
            throw ConfigError(keyPath: "clients.api_keys_file", message: "\(error)")
        }
    }

    /// Binds the listen address and starts serving.
    public func start() throws(HTTPServerError) {
        try server.start()
    }

    /// The port the server listens on.
    public var port: UInt16 { server.port }

    /// Stops accepting connections, lets suspended requests finish for up to
    /// `drainTimeout`, then stops the server and the loops. (libmicrohttpd
    /// aborts when stopped with a suspended request, so a server still
    /// holding one after the deadline is left to the process exit.)
    public func shutdown(drainTimeout: Duration) {
        server.quiesce()
        let deadline = MonotonicClock.nanoseconds() + drainTimeout.nanoseconds
        while server.suspendedRequests > 0, MonotonicClock.nanoseconds() < deadline {
            usleep(5_000)
        }
        guard server.suspendedRequests == 0 else { return }
        server.stop()
        loops.shutdownAndWait()
    }
}
