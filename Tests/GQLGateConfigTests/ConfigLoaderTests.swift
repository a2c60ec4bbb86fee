import Foundation
import Testing
@testable import GQLGateConfig

@Suite struct ConfigLoaderTests {
    private func fileError(_ fixture: String, environment: [String: String] = [:]) throws -> String? {
        let path = try #require(fixturePath(fixture))
        return thrownError { () throws(ConfigError) in try ConfigLoader.load(file: path, environment: environment) }
    }

    @Test func unknownNestedKeyFixture() throws {
        #expect(try fileError("unknown-nested-key")
            == "auth.oauth2.client_secrt: unknown key (allowed: token_url, client_id, client_secret, scope, client_auth)")
    }

    @Test func bareIntegerDurationFixture() throws {
        #expect(try fileError("bare-integer-duration") == #"upstream.timeout: "10" is not valid: expected a duration; use a unit: 10s, 10ms"#)
    }

    @Test func missingVariableFixture() throws {
        #expect(try fileError("missing-variable")
            == "auth.headers.X-Api-Key: environment variable UPSTREAM_API_KEY is not set "
            + "(set it, or give a default: ${UPSTREAM_API_KEY:-value})")
        #expect(try fileError("missing-variable", environment: ["UPSTREAM_API_KEY": "k"]) == nil)
    }

    @Test func invalidYAMLFixture() throws {
        let message = try #require(try fileError("invalid-yaml"))
        #expect(message.hasPrefix("invalid YAML at line "))
    }

    @Test func duplicateKeyFixture() throws {
        #expect(try fileError("duplicate-key") == #"invalid YAML at line 4, column 3: duplicate key "timeout""#)
    }

    @Test func beyondLoopbackFixtureLoadsButFailsValidation() throws {
        let path = try #require(fixturePath("beyond-loopback"))
        let config = try ConfigLoader.load(file: path, environment: [:])
        #expect(thrownError { () throws(ConfigError) in try config.validate() }?.contains("clients.allow_anonymous") == true)
    }

    @Test func unreadableFileNamesThePath() {
        let error = thrownError { () throws(ConfigError) in try ConfigLoader.load(file: "/nonexistent/gqlgate.yaml", environment: [:]) }
        #expect(error?.hasPrefix("cannot read config file /nonexistent/gqlgate.yaml: ") == true)
    }

    @Test func configPathPrefersTheFlag() {
        #expect(ConfigLoader.configPath(flag: "a.yaml", environment: ["GQLGATE_CONFIG": "b.yaml"]) == "a.yaml")
        #expect(ConfigLoader.configPath(flag: nil, environment: ["GQLGATE_CONFIG": "b.yaml"]) == "b.yaml")
        #expect(ConfigLoader.configPath(flag: nil, environment: ["GQLGATE_CONFIG": ""]) == nil)
        #expect(ConfigLoader.configPath(flag: nil, environment: [:]) == nil)
    }

    @Test func resolveLayersFlagsOverEnvironmentOverFileAndValidates() throws {
        let path = try #require(fixturePath("beyond-loopback"))
        let environment = ["GQLGATE_CONFIG": path, "GQLGATE_LISTEN": "127.0.0.1:7000", "GQLGATE_LOG_LEVEL": "warn"]
        let config = try ConfigLoader.resolve(configFlag: nil, flags: ConfigOverrides(logLevel: "debug"), environment: environment)
        #expect(config.server.listen == ListenAddress(host: "127.0.0.1", port: 7000))
        #expect(config.upstream.url == "http://127.0.0.1:4000/graphql")
        #expect(config.logging.level == .debug)
        #expect(thrownError { () throws(ConfigError) in
            try ConfigLoader.resolve(configFlag: path, flags: ConfigOverrides(), environment: [:])
        }?.hasPrefix("server.listen: ") == true)
    }

    @Test func resolveWithoutAFileGivesDefaults() throws {
        #expect(try ConfigLoader.resolve(configFlag: nil, flags: ConfigOverrides(), environment: [:]) == GatewayConfig())
    }
}
