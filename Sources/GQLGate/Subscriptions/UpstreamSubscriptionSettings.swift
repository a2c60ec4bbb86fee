import GQLGateCore
import GQLGateConfig
import GQLGatePipeline
import GQLGateSubscriptions

/// How gqlgate runs its upstream WebSockets, from the `upstream`, `auth` and
/// `subscriptions` keys.
struct UpstreamSubscriptionSettings: Sendable {
    /// `upstream.ws_url`, or the one derived from `upstream.url`.
    var url: String
    /// The protocol machine's settings (`upstream.ws_protocol`, keep-alive, reconnect).
    var session: UpstreamSessionSettings
    /// `subscriptions.dedupe`.
    var dedupe: Bool
    /// `cache.vary_headers`: with the credential headers, the scope of a shared subscription.
    var varyHeaders: [String]
    /// `auth.ws_init_payload`, merged over the credential headers in `connection_init`.
    var initPayload: JSONValue?
    /// `upstream.connect_timeout`.
    var connectTimeout: Duration
    /// Results a listener may have waiting before it counts as too slow and is ended.
    var maxQueuedResults: Int

    init(config: GatewayConfig) {
        url = config.upstream.effectiveWSURL ?? ""
        let subprotocol: WebSocketSubprotocol = config.upstream.wsProtocol == .graphqlWS ? .graphqlWS : .graphqlTransportWS
        session = UpstreamSessionSettings(
            subprotocol: subprotocol, keepalive: config.subscriptions.keepalive,
            reconnect: config.subscriptions.reconnect ? ReconnectBackoff() : nil)
        dedupe = config.subscriptions.dedupe
        varyHeaders = config.cache.varyHeaders
        if case .object(let members) = config.auth.wsInitPayload, members.isEmpty {
            initPayload = nil
        } else {
            initPayload = config.auth.wsInitPayload.json
        }
        connectTimeout = config.upstream.connectTimeout
        maxQueuedResults = 1024
    }

    /// Whether live subscriptions can stay on their upstream connections when
    /// the configuration changes from `running` to `proposed`: no `upstream`,
    /// `auth`, `subscriptions` or `cache.vary_headers` key changed.
    static func carriesOver(from running: GatewayConfig, to proposed: GatewayConfig) -> Bool {
        running.upstream == proposed.upstream && running.auth == proposed.auth && running.subscriptions == proposed.subscriptions
            && running.cache.varyHeaders == proposed.cache.varyHeaders
    }
}
