import Testing
@testable import GQLGateConfig

@Suite struct ServerConfigTests {
    @Test func defaults() {
        let server = GatewayConfig().server
        #expect(server.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(server.path == "/graphql")
        #expect(server.maxBodyBytes == 1_048_576)
        #expect(server.threads == .auto)
        #expect(server.loops == .auto)
        #expect(server.drainTimeout == .seconds(10))
        #expect(server.maxConnections == 16_384)
        #expect(server.maxHeaderBytes == 16_384)
        #expect(server.idleTimeout == .seconds(120))
        #expect(server.headerTimeout == .seconds(10))
        #expect(server.bodyTimeout == .seconds(60))
        #expect(server.writeTimeout == .seconds(30))
    }

    @Test func readsEveryKey() throws {
        let server = try load("""
            server:
              listen: "[::1]:9090"
              path: /api/graphql
              max_body_bytes: 2MiB
              threads: 4
              loops: auto
              drain_timeout: 1m
              max_connections: 20000
              max_header_bytes: 8KiB
              idle_timeout: 1m
              header_timeout: 4s
              body_timeout: 2m
              write_timeout: 5s
            """).server
        #expect(server.listen == ListenAddress(host: "::1", port: 9090))
        #expect(server.path == "/api/graphql")
        #expect(server.maxBodyBytes == 2 << 20)
        #expect(server.threads == .fixed(4))
        #expect(server.loops == .auto)
        #expect(server.drainTimeout == .seconds(60))
        #expect(server.maxConnections == 20_000)
        #expect(server.maxHeaderBytes == 8192)
        #expect(server.idleTimeout == .seconds(60))
        #expect(server.headerTimeout == .seconds(4))
        #expect(server.bodyTimeout == .seconds(120))
        #expect(server.writeTimeout == .seconds(5))
    }

    /// libmicrohttpd counts connection timeouts in whole seconds.
    @Test func connectionTimeoutsAreWholeSecondsAboveZero() {
        #expect(loadError("server: {idle_timeout: 0}") == #"server.idle_timeout: "0" is not valid: expected a duration > 0, such as 10s"#)
        #expect(loadError("server: {write_timeout: 1500ms}") == #"server.write_timeout: "1500ms" is not valid: expected whole seconds, such as 30s"#)
        #expect(loadError("server: {write_timeout: 30}")?.hasPrefix("server.write_timeout: ") == true)
        #expect(loadError("server: {header_timeout: 500ms}") == #"server.header_timeout: "500ms" is not valid: expected whole seconds, such as 30s"#)
        #expect(loadError("server: {body_timeout: 0}") == #"server.body_timeout: "0" is not valid: expected a duration > 0, such as 10s"#)
    }

    @Test func rejectsConnectionLimitsOutOfRange() {
        #expect(loadError("server: {max_connections: 0}")?.hasPrefix("server.max_connections: ") == true)
        #expect(loadError("server: {max_header_bytes: 2KiB}")?.hasPrefix("server.max_header_bytes: ") == true)
        #expect(loadError("server: {max_header_bytes: 2MiB}")?.hasPrefix("server.max_header_bytes: ") == true)
    }

    @Test func threadsAutoMeansOneAndLoopsAutoMeansCoresMinusOne() throws {
        var server = ServerConfig()
        #expect(server.httpThreadCount == 1)
        #expect(server.eventLoopCount(cores: 8) == 7)
        #expect(server.eventLoopCount(cores: 1) == 1)
        server.threads = .fixed(6)
        server.loops = .fixed(2)
        #expect(server.httpThreadCount == 6)
        #expect(server.eventLoopCount(cores: 8) == 2)
    }

    @Test func rejectsBadThreadCounts() {
        #expect(loadError("server: {threads: 0}") == #"server.threads: "0" is not valid: expected auto or an integer >= 1"#)
        #expect(loadError("server: {loops: many}") == #"server.loops: "many" is not valid: expected auto or an integer >= 1"#)
    }

    @Test(arguments: ["graphql", "/metrics", "/healthz", "/graphql?x=1", "/a b"])
    func rejectsBadPaths(path: String) {
        #expect(loadError("server: {path: \"\(path)\"}")
            == "server.path: \(ConfigError.quoted(path)) is not valid: expected a path starting with / (no query, no spaces), "
            + "other than /healthz, /readyz, /metrics")
    }
}
