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
            headers: {forward: [x-tenant]}
            limits: {max_depth: 3, max_aliases: 2, max_document_bytes: 1KiB}
            clients: {allow_anonymous: true}
            """)
        #expect(config.inactiveKeys().isEmpty)
    }

    @Test func changedKeysOfBuiltFeaturesAreNotListed() throws {
        let config = try load("""
            auth:
              headers: {X-Api-Key: k}
              oauth2: {token_url: "https://id/token", client_id: a, client_secret: b}
            headers: {forward: [], forward_client_authorization: true}
            clients: {api_keys_file: /etc/keys, allow_anonymous: true}
            retry: {max_attempts: 1}
            cache: {enabled: true, types: {Review: 1s}, backend: redis, redis_url: "redis://127.0.0.1:6380"}
            dedupe: {enabled: false}
            apq: {upstream: true}
            limits: {max_depth: 3}
            subscriptions: {keepalive: 1s}
            logging: {level: debug, format: text}
            metrics: {enabled: false}
            """)
        #expect(config.inactiveKeys().isEmpty)
    }

    @Test func valuesEqualToTheDefaultAreNotListed() throws {
        #expect(try load("retry: {max_attempts: 3}\ncache: {max_bytes: 65536KiB}").inactiveKeys().isEmpty)
    }
}
