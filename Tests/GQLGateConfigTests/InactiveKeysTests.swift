import Testing
@testable import GQLGateConfig

@Suite struct InactiveKeysTests {
    @Test func defaultsHaveNone() {
        #expect(GatewayConfig().inactiveKeys().isEmpty)
    }

    @Test func activeKeysAreNotListed() throws {
        let config = try load("""
            server: {listen: "127.0.0.1:9000", threads: 4}
            upstream: {url: http://a/graphql, ws_protocol: graphql-ws}
            logging: {level: debug}
            """)
        #expect(config.inactiveKeys().isEmpty)
    }

    @Test func listsChangedKeysOfFeaturesNotBuiltYet() throws {
        let config = try load("""
            auth:
              headers: {X-Api-Key: k}
              oauth2: {token_url: "https://id/token", client_id: a, client_secret: b}
            headers: {forward: []}
            clients: {allow_anonymous: true}
            retry: {max_attempts: 1}
            cache: {enabled: true, types: {Review: 1s}}
            dedupe: {enabled: false}
            apq: {upstream: true}
            limits: {max_depth: 3}
            subscriptions: {keepalive: 1s}
            logging: {level: debug, format: text}
            metrics: {enabled: false}
            """)
        #expect(config.inactiveKeys() == [
            "auth.headers", "auth.oauth2", "headers.forward", "clients.allow_anonymous", "retry.max_attempts", "cache.enabled",
            "cache.types", "dedupe.enabled", "apq.upstream", "limits.max_depth", "subscriptions.keepalive", "logging.format",
            "metrics.enabled",
        ])
    }

    @Test func valuesEqualToTheDefaultAreNotListed() throws {
        #expect(try load("retry: {max_attempts: 3}\ncache: {max_bytes: 65536KiB}").inactiveKeys().isEmpty)
    }
}
