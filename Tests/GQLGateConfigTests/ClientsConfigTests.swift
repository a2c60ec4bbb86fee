import Testing
@testable import GQLGateConfig

@Suite struct ClientsConfigTests {
    @Test func defaults() {
        let clients = GatewayConfig().clients
        #expect(clients.apiKeysFile == nil)
        #expect(!clients.allowAnonymous)
    }

    @Test func readsEveryKey() throws {
        let clients = try load("clients: {api_keys_file: /etc/gqlgate/keys, allow_anonymous: true}").clients
        #expect(clients.apiKeysFile == "/etc/gqlgate/keys")
        #expect(clients.allowAnonymous)
    }
}
