import GQLGateConfig
import GQLGateCore
import GQLGatePipeline
import GQLGateSubscriptions
import GQLGateTransports

extension UpstreamSubscriptionSettings {
    /// The settings the `upstream`, `auth` and `subscriptions` keys give.
    init(config: GatewayConfig) {
        let subprotocol: WebSocketSubprotocol = config.upstream.wsProtocol == .graphqlWS ? .graphqlWS : .graphqlTransportWS
        let initPayload: JSONValue?
        if case .object(let members) = config.auth.wsInitPayload, members.isEmpty {
            initPayload = nil
        } else {
            initPayload = config.auth.wsInitPayload.json
        }
        self.init(
            url: config.upstream.effectiveWSURL ?? "",
            session: UpstreamSessionSettings(
                subprotocol: subprotocol, keepalive: config.subscriptions.keepalive,
                reconnect: config.subscriptions.reconnect ? ReconnectBackoff() : nil),
            dedupe: config.subscriptions.dedupe, varyHeaders: config.cache.varyHeaders, initPayload: initPayload,
            connectTimeout: config.upstream.connectTimeout)
    }

    /// Whether live subscriptions can stay on their upstream connections when
    /// the configuration changes from `running` to `proposed`: no `upstream`,
    /// `auth`, `subscriptions` or `cache.vary_headers` key changed.
    static func carriesOver(from running: GatewayConfig, to proposed: GatewayConfig) -> Bool {
        running.upstream == proposed.upstream && running.auth == proposed.auth && running.subscriptions == proposed.subscriptions
            && running.cache.varyHeaders == proposed.cache.varyHeaders
    }
}
