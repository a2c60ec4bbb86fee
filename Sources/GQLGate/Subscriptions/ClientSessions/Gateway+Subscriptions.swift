import GQLGateConfig
import GQLGateEventLoop
import GQLGateExchanges
import GQLGateHTTPClient
import GQLGateMetrics
import GQLGateTransports
import Logging

/// What building a pipeline needs to give it its subscription transport.
struct SubscriptionContext: Sendable {
    let loops: EventLoopGroup
    let logger: Logger
    /// The pipeline being replaced (on reload), whose live subscriptions may carry over.
    let previous: GatewayGeneration?

    /// `previous`'s transport when its subscriptions can carry over to
    /// `config`, else a new one.
    func transport(config: GatewayConfig, client: HTTPClient, recorder: GatewayRecorder,
                   credentials: UpstreamAuthExchange?) -> UpstreamSubscriptions {
        if let previous, UpstreamSubscriptionSettings.carriesOver(from: previous.config, to: config) {
            return previous.subscriptions
        }
        let refresh: UpstreamSubscriptions.CredentialRefresh? = credentials.map { exchange in
            { @Sendable refused in await exchange.freshCredentials(replacing: refused) }
        }
        return UpstreamSubscriptions(
            settings: UpstreamSubscriptionSettings(config: config), client: client, loops: loops, recorder: recorder,
            logger: logger, refreshCredentials: refresh)
    }
}

extension Gateway {
    /// Drain step for subscriptions: every client WebSocket gets `complete`
    /// for its operations and a 1001 close (waiting for the close handshakes,
    /// which a client has `WebSocketEndpoint.closeTimeout` to answer), then
    /// the upstream WebSockets close.
    func drainSubscriptions(before deadline: UInt64) {
        endpoint.webSockets.sessions.shutdownAll()
        _ = endpoint.webSockets.sessions.waitUntilEmpty(before: Self.deadline(in: WebSocketEndpoint.closeTimeout + .seconds(1), before: deadline))
        generations.current.subscriptions.shutdown()
    }
}
