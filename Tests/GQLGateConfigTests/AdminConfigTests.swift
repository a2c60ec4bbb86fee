import Testing
@testable import GQLGateConfig

@Suite struct AdminConfigTests {
    private func validationError(_ yaml: String) throws -> String? {
        let config = try load(yaml)
        return thrownError { () throws(ConfigError) in try config.validate() }
    }

    @Test func offByDefault() {
        let admin = GatewayConfig().admin
        #expect(admin.listen == nil && admin.tokenFile == nil && !admin.isEnabled)
    }

    @Test func readsEveryKey() throws {
        let admin = try load("admin: {listen: \"127.0.0.1:8088\", token_file: /run/secrets/admin-token}").admin
        #expect(admin.listen == ListenAddress(host: "127.0.0.1", port: 8088))
        #expect(admin.tokenFile == "/run/secrets/admin-token")
        #expect(admin.isEnabled)
        #expect(try load("admin: {listen: \"[::1]:9000\"}").admin.listen == ListenAddress(host: "::1", port: 9000))
    }

    @Test func emptyStringsAreTheDefaults() throws {
        #expect(try load("admin: {listen: \"\", token_file: \"\"}").admin == AdminConfig())
        #expect(try load("admin: ~").admin == AdminConfig())
    }

    @Test func refusesBadValuesAndUnknownKeys() {
        #expect(loadError("admin: {listen: \"8088\"}")?.hasPrefix("admin.listen: \"8088\" is not valid: expected HOST:PORT") == true)
        #expect(loadError("admin: {listen: \"127.0.0.1:99999\"}")?.hasPrefix("admin.listen: ") == true)
        #expect(loadError("admin: {token: x}") == "admin.token: unknown key (allowed: listen, token_file)")
        #expect(loadError("admin: {listen: [a]}")?.hasPrefix("admin.listen: a list is not valid") == true)
    }

    @Test func beyondLoopbackNeedsATokenFile() throws {
        #expect(try validationError("admin: {listen: \"0.0.0.0:8088\"}")
            == "admin.listen: 0.0.0.0:8088 is beyond loopback and admin.token_file is not set: "
            + "set admin.token_file (the admin API purges the cache), or listen on loopback")
        #expect(try validationError("admin: {listen: \"10.0.0.5:8088\"}")?.hasPrefix("admin.listen: 10.0.0.5:8088 is beyond loopback") == true)
        #expect(try validationError("admin: {listen: \"[::]:8088\"}")?.contains("admin.token_file") == true)
        #expect(try validationError("admin: {listen: \"0.0.0.0:8088\", token_file: /run/admin-token}") == nil)
        // Client authentication on the client port says nothing of the admin listener.
        #expect(try validationError("clients: {allow_anonymous: true}\nadmin: {listen: \"0.0.0.0:8088\"}")?.hasPrefix("admin.listen") == true)
    }

    @Test(arguments: ["127.0.0.1:8088", "127.0.0.9:8088", "[::1]:8088", "localhost:8088"])
    func loopbackNeedsNoToken(listen: String) throws {
        #expect(try validationError("admin: {listen: \"\(listen)\"}") == nil)
    }

    @Test func neverTheClientPortOnTheSameHost() throws {
        let sameSocket = [
            ("127.0.0.1:8080", "127.0.0.1:8080"), ("localhost:8080", "127.0.0.1:8080"), ("127.0.0.1:8080", "localhost:8080"),
            ("0.0.0.0:8080", "127.0.0.1:8080"), ("127.0.0.1:8080", "0.0.0.0:8080"), ("[::]:8080", "[::1]:8080"),
        ]
        for (server, admin) in sameSocket {
            let error = try validationError("server: {listen: \"\(server)\"}\nclients: {allow_anonymous: true}\n"
                + "admin: {listen: \"\(admin)\", token_file: /run/admin-token}")
            #expect(error?.hasPrefix("admin.listen: \(try ListenAddress(parsing: admin)) is server.listen's port") == true, "\(server) \(admin)")
        }
        #expect(try validationError("admin: {listen: \"127.0.0.1:8080\"}")
            == "admin.listen: 127.0.0.1:8080 is server.listen's port (127.0.0.1:8080) on the same host: "
            + "the admin API never shares the client port; choose another port")
        // Another port, another address of the host, or a port the system chooses.
        #expect(try validationError("admin: {listen: \"127.0.0.1:8081\"}") == nil)
        #expect(try validationError("admin: {listen: \"127.0.0.2:8080\"}") == nil)
        #expect(try validationError("server: {listen: \"127.0.0.1:0\"}\nadmin: {listen: \"127.0.0.1:0\"}") == nil)
    }

    @Test func rendersAndLoadsAgain() throws {
        let config = try load("admin: {listen: \"[::1]:8088\", token_file: /run/admin-token}")
        let text = config.renderYAML()
        #expect(text.hasSuffix("admin:\n  listen: \"[::1]:8088\"\n  token_file: \"/run/admin-token\"\n"))
        #expect(try load(text) == config)
        #expect(GatewayConfig().renderYAML().hasSuffix("admin:\n  listen: \"\"\n  token_file: \"\"\n"))
    }
}
