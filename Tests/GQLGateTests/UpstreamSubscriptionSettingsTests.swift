@testable import GQLGate
import GQLGateCore
import GQLGatePipeline
import GQLGateSubscriptions
import GQLGateTransports
import Testing

@Suite struct UpstreamSubscriptionSettingsTests {
    @Test func followsTheUpstreamAuthAndSubscriptionsKeys() {
        var config = GatewayConfig()
        config.upstream.url = "https://api.example.com/graphql"
        config.upstream.wsProtocol = .graphqlWS
        config.auth.wsInitPayload = .object([.init(key: "tenant", value: .string("blue")), .init(key: "n", value: .int(2))])
        config.subscriptions.reconnect = false
        config.subscriptions.dedupe = false
        let settings = UpstreamSubscriptionSettings(config: config)
        #expect(settings.url == "wss://api.example.com/graphql")
        #expect(settings.session.subprotocol == .graphqlWS)
        #expect(settings.session.reconnect == nil)
        #expect(!settings.dedupe)
        #expect(settings.initPayload == .object([("tenant", .string("blue")), ("n", .integer(2))]))
    }

    @Test func anEmptyInitPayloadSendsOnlyTheCredentials() {
        var config = GatewayConfig()
        config.upstream.url = "http://127.0.0.1:4000/graphql"
        let settings = UpstreamSubscriptionSettings(config: config)
        #expect(settings.url == "ws://127.0.0.1:4000/graphql")
        #expect(settings.initPayload == nil)
        #expect(settings.session.reconnect != nil)
    }

    @Test func liveSubscriptionsCarryOverOnlyWhileTheirUpstreamSideIsUnchanged() {
        let running = GatewayConfig()
        var proposed = running
        proposed.cache.defaultTTL = .seconds(1)
        proposed.limits.maxDepth = 3
        #expect(UpstreamSubscriptionSettings.carriesOver(from: running, to: proposed))
        for change in [
            { (config: inout GatewayConfig) in config.upstream.wsURL = "ws://127.0.0.1:9/graphql" },
            { config in config.auth.headers = [HeaderField(name: "X-Key", value: "2")] },
            { config in config.subscriptions.keepalive = .seconds(1) },
            { config in config.cache.varyHeaders = ["x-tenant"] },
        ] {
            var changed = running
            change(&changed)
            #expect(!UpstreamSubscriptionSettings.carriesOver(from: running, to: changed))
        }
    }
}
