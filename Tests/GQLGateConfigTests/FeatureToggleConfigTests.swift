import Testing
@testable import GQLGateConfig

/// The small sections: `dedupe`, `apq`, `limits`, `subscriptions`, `logging`, `metrics`.
@Suite struct FeatureToggleConfigTests {
    @Test func defaults() {
        let config = GatewayConfig()
        #expect(config.dedupe.enabled)
        #expect(config.apq.enabled)
        #expect(!config.apq.upstream)
        #expect(config.limits.maxDepth == 15)
        #expect(config.limits.maxAliases == 30)
        #expect(config.limits.maxDocumentBytes == 65_536)
        #expect(config.subscriptions.dedupe)
        #expect(config.subscriptions.keepalive == .seconds(15))
        #expect(config.subscriptions.reconnect)
        #expect(config.subscriptions.maxPerConnection == 100)
        #expect(config.subscriptions.initTimeout == .seconds(3))
        #expect(config.logging.level == .info)
        #expect(config.logging.format == .json)
        #expect(config.metrics.enabled)
    }

    @Test func readsEveryKey() throws {
        let config = try load("""
            dedupe: {enabled: false}
            apq: {enabled: false, upstream: true}
            limits: {max_depth: 10, max_aliases: 0, max_document_bytes: 16KiB}
            subscriptions: {dedupe: false, keepalive: 0s, reconnect: false, max_per_connection: 5, init_timeout: 10s}
            logging: {level: debug, format: text}
            metrics: {enabled: false}
            """)
        #expect(!config.dedupe.enabled)
        #expect(!config.apq.enabled)
        #expect(config.apq.upstream)
        #expect(config.limits.maxDepth == 10)
        #expect(config.limits.maxAliases == 0)
        #expect(config.limits.maxDocumentBytes == 16_384)
        #expect(!config.subscriptions.dedupe)
        #expect(config.subscriptions.keepalive == .zero)
        #expect(!config.subscriptions.reconnect)
        #expect(config.subscriptions.maxPerConnection == 5)
        #expect(config.subscriptions.initTimeout == .seconds(10))
        #expect(config.logging.level == .debug)
        #expect(config.logging.format == .text)
        #expect(!config.metrics.enabled)
    }

    @Test func rejectsBadValues() {
        #expect(loadError("limits: {max_depth: 0}") == #"limits.max_depth: "0" is not valid: expected an integer >= 1"#)
        #expect(loadError("limits: {max_aliases: -1}") == #"limits.max_aliases: "-1" is not valid: expected an integer >= 0"#)
        #expect(loadError("subscriptions: {init_timeout: 0s}")
            == #"subscriptions.init_timeout: "0s" is not valid: expected a duration > 0, such as 10s"#)
        #expect(loadError("logging: {format: yaml}") == #"logging.format: "yaml" is not valid: expected one of json, text"#)
        #expect(loadError("metrics: {enabled: maybe}") == #"metrics.enabled: "maybe" is not valid: expected true or false"#)
    }
}
