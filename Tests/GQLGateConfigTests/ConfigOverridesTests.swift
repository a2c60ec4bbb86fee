import Testing
@testable import GQLGateConfig

@Suite struct ConfigOverridesTests {
    @Test func readsTheEnvironment() {
        let overrides = ConfigOverrides.environment([
            "GQLGATE_LISTEN": "0.0.0.0:80", "GQLGATE_UPSTREAM": "http://a/graphql", "GQLGATE_UPSTREAM_WS": "ws://a/graphql",
            "GQLGATE_LOG_LEVEL": "", "OTHER": "x",
        ])
        #expect(overrides == ConfigOverrides(listen: "0.0.0.0:80", upstream: "http://a/graphql", upstreamWS: "ws://a/graphql"))
    }

    @Test func flagsWinOverTheEnvironment() {
        let flags = ConfigOverrides(listen: "127.0.0.1:1", logLevel: "debug")
        let environment = ConfigOverrides(listen: "127.0.0.1:2", upstream: "http://env/graphql", logLevel: "error")
        #expect(flags.merged(over: environment)
            == ConfigOverrides(listen: "127.0.0.1:1", upstream: "http://env/graphql", logLevel: "debug"))
    }

    @Test func overridesWinOverTheFileAndLeaveTheRest() throws {
        let file = try load("server: {listen: \"127.0.0.1:9000\", path: /gql}\nupstream: {url: http://file/graphql}\nlogging: {level: error}")
        let config = try file.applying(ConfigOverrides(
            listen: "[::1]:8081", upstream: "https://flag/graphql", upstreamWS: "wss://flag/ws", logLevel: "trace"
        ))
        #expect(config.server.listen == ListenAddress(host: "::1", port: 8081))
        #expect(config.server.path == "/gql")
        #expect(config.upstream.url == "https://flag/graphql")
        #expect(config.upstream.wsURL == "wss://flag/ws")
        #expect(config.logging.level == .trace)
        #expect(try file.applying(ConfigOverrides()) == file)
    }

    @Test func precedenceIsFlagThenEnvironmentThenFileThenDefault() throws {
        let file = try load("upstream: {url: http://file/graphql}\nlogging: {level: error}")
        let environment = ConfigOverrides.environment(["GQLGATE_UPSTREAM": "http://env/graphql", "GQLGATE_LOG_LEVEL": "warn"])
        let config = try file.applying(ConfigOverrides(logLevel: "debug").merged(over: environment))
        #expect(config.logging.level == .debug)
        #expect(config.upstream.url == "http://env/graphql")
        #expect(config.server.listen == ServerConfig().listen)
    }

    @Test func badValuesNameTheFlagAndVariable() {
        let config = GatewayConfig()
        #expect(thrownError { () throws(ConfigError) in try config.applying(ConfigOverrides(listen: "nowhere")) }
            == #"--listen/GQLGATE_LISTEN: "nowhere" is not valid: expected HOST:PORT such as 127.0.0.1:8080, [::1]:8080 or "#
            + "localhost:8080, with a port from 0 to 65535")
        #expect(thrownError { () throws(ConfigError) in try config.applying(ConfigOverrides(upstream: "ws://a")) }
            == #"--upstream/GQLGATE_UPSTREAM: "ws://a" is not valid: expected a http:// or https:// URL with a host"#)
        #expect(thrownError { () throws(ConfigError) in try config.applying(ConfigOverrides(upstreamWS: "http://a")) }
            == #"--upstream-ws/GQLGATE_UPSTREAM_WS: "http://a" is not valid: expected a ws:// or wss:// URL with a host"#)
        #expect(thrownError { () throws(ConfigError) in try config.applying(ConfigOverrides(logLevel: "loud")) }
            == #"--log-level/GQLGATE_LOG_LEVEL: "loud" is not valid: expected one of trace, debug, info, warn, error"#)
    }
}
