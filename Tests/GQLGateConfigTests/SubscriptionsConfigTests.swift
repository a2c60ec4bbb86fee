import Testing
@testable import GQLGateConfig

@Suite struct SubscriptionsConfigTests {
    @Test func defaults() {
        let subscriptions = GatewayConfig().subscriptions
        #expect(subscriptions.dedupe)
        #expect(subscriptions.keepalive == .seconds(15))
        #expect(subscriptions.reconnect)
        #expect(subscriptions.maxPerConnection == 100)
        #expect(subscriptions.initTimeout == .seconds(3))
    }

    @Test func readsEveryKey() throws {
        let subscriptions = try load(
            "subscriptions: {dedupe: false, keepalive: 0s, reconnect: false, max_per_connection: 5, init_timeout: 10s}"
        ).subscriptions
        #expect(!subscriptions.dedupe)
        #expect(subscriptions.keepalive == .zero)
        #expect(!subscriptions.reconnect)
        #expect(subscriptions.maxPerConnection == 5)
        #expect(subscriptions.initTimeout == .seconds(10))
    }

    @Test func rejectsBadValues() {
        #expect(loadError("subscriptions: {init_timeout: 0s}")
            == #"subscriptions.init_timeout: "0s" is not valid: expected a duration > 0, such as 10s"#)
        #expect(loadError("subscriptions: {max_per_connection: 0}")
            == #"subscriptions.max_per_connection: "0" is not valid: expected an integer >= 1"#)
    }
}
