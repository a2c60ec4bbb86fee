import Testing
@testable import GQLGateConfig

@Suite struct ConfigSecretTests {
    /// The secret every bad config below carries, in the file or in `SECRET`.
    private static let secret = "hunter2-topsecret"
    private static let environment = ["SECRET": secret, "SECRET_LINE": secret + "\n", "REDIS": "redis://gate:\(secret)@cache:99999/0"]

    /// The error that loading and validating `yaml` throws.
    private func failure(_ yaml: String) throws -> ConfigError {
        do {
            try ConfigLoader.load(yaml: yaml, environment: Self.environment).validate()
        } catch {
            return error
        }
        throw ConfigError(keyPath: "", message: "loaded without an error")
    }

    @Test(arguments: [
        ("auth: {headers: {X-Api-Key: \"${SECRET_LINE}\"}}", "auth.headers.X-Api-Key"),
        ("auth: {headers: {X-Api-Key: \"\(secret)\\n\"}}", "auth.headers.X-Api-Key"),
        ("auth: {headers: {X-Api-Key: \"\(secret)${\"}}", "auth.headers.X-Api-Key"),
        ("auth: {headers: {X-Api-Key: \"\(secret)${NOT-A-NAME}\"}}", "auth.headers.X-Api-Key"),
        ("auth: {headers: \"\(secret)\"}", "auth.headers"),
        ("auth: {oauth2: {token_url: \"https://id/token\", client_id: a, client_secret: \"\(secret)${\"}}", "auth.oauth2.client_secret"),
        ("auth: {oauth2: \"\(secret)\"}", "auth.oauth2"),
        ("auth: {ws_init_payload: \"\(secret)\"}", "auth.ws_init_payload"),
        ("auth: {ws_init_payload: \"${SECRET}\"}", "auth.ws_init_payload"),
        ("auth: {ws_init_payload: {token: \"\(secret)${\"}}", "auth.ws_init_payload.token"),
        ("auth: {ws_init_payload: {list: [\"\(secret)${\"]}}", "auth.ws_init_payload.list[0]"),
        ("auth: \"\(secret)\"", "auth"),
        ("cache: {backend: redis, redis_url: \"redis://gate:\(secret)@\"}", "cache.redis_url"),
        ("cache: {backend: redis, redis_url: \"redis//:\(secret)@cache\"}", "cache.redis_url"),
        ("cache: {backend: redis, redis_url: \"http://:\(secret)@cache\"}", "cache.redis_url"),
        ("cache: {backend: redis, redis_url: \"redis://:pass/\(secret)@\"}", "cache.redis_url"),
        ("cache: {redis_url: \"redis://:\(secret)${@cache\"}", "cache.redis_url"),
        ("cache: \"\(secret)\"", "cache"),
        ("upstream: {url: \"ftp://gate:\(secret)@api/graphql\"}", "upstream.url"),
        ("upstream: {url: \"http://gate:\(secret)@api/graphql\", ws_url: \"http://gate:\(secret)@api/graphql\"}", "upstream.ws_url"),
        ("auth: {oauth2: {token_url: \"ftp://id:\(secret)@idp/token\", client_id: a, client_secret: b}}", "auth.oauth2.token_url"),
    ])
    func errorsNameTheKeyButNotTheSecret(yaml: String, keyPath: String) throws {
        let error = try failure(yaml)
        #expect(error.keyPath == keyPath, "\(error)")
        #expect(!error.description.contains(Self.secret), "\(error)")
        #expect(!error.description.contains("topsecret"), "\(error)")
    }

    @Test func aRedisURLKeepsAllButItsPasswordInTheError() throws {
        let error = try failure("cache: {backend: redis, redis_url: \"redis://gate:\(Self.secret)@\"}")
        #expect(error.description
            == #"cache.redis_url: "redis://gate:<redacted>@" is not valid: expected a redis://, rediss://, redis-sentinel:// or redis-cluster:// URL (cache.backend is redis)"#)
    }

    @Test func aHeaderValueIsRedactedLikeInThePrintedConfig() throws {
        let error = try failure("auth: {headers: {X-Api-Key: \"${SECRET_LINE}\"}}")
        #expect(error.description == #"auth.headers.X-Api-Key: "<redacted>" is not valid: expected a header value without line breaks"#)
    }

    @Test func namesAndOtherValuesAreStillQuoted() throws {
        #expect(try failure("auth: {headers: {\"Bad Name\": v}}").description.contains(#""Bad Name" is not valid"#))
        #expect(try failure("auth: {oauth2: {token_url: \"ftp://id/token\"}}").description.contains(#""ftp://id/token""#))
        #expect(try failure("retry: {max_attempts: zero}").description == #"retry.max_attempts: "zero" is not valid: expected an integer >= 1"#)
    }

    /// Every key `check-config` redacts is secret in errors, and no other: the two never drift apart.
    @Test func secretKeysAreTheKeysThePrintedConfigRedacts() throws {
        let config = try ConfigLoader.load(yaml: """
            upstream: {url: "http://gate:${SECRET}@api/graphql", ws_url: "ws://gate:${SECRET}@api/graphql"}
            auth:
              headers: {X-Api-Key: "${SECRET}"}
              oauth2: {token_url: "https://id:${SECRET}@idp/token", client_id: gqlgate, client_secret: "${SECRET}"}
              ws_init_payload: {token: "${SECRET}", nested: {list: [1]}}
            cache: {redis_url: "${REDIS}"}
            redis: {url: "${REDIS}"}
            tracing: {endpoint: "http://otel:${SECRET}@collector:4318/v1/traces", headers: {Authorization: "${SECRET}"}}
            """, environment: Self.environment)
        let redacted = RenderedNode.flatten(config.renderedSections(redactingSecrets: true))
        let plain = RenderedNode.flatten(config.renderedSections(redactingSecrets: false))
        #expect(redacted.map(\.path) == plain.map(\.path))
        for (shown, full) in zip(redacted, plain) {
            #expect((shown.text != full.text) == (ConfigSecret.at(full.path) != nil), "\(full.path)")
            #expect(!shown.text.contains(Self.secret), "\(full.path)")
        }
    }

    @Test func passwordsInURLsAreRedacted() {
        #expect(ConfigSecret.urlPassword.redacting("redis://gate:pw@cache:6379/2") == "redis://gate:<redacted>@cache:6379/2")
        #expect(ConfigSecret.urlPassword.redacting("redis://:p/w@cache") == "redis://:<redacted>@cache")
        #expect(ConfigSecret.urlPassword.redacting("redis://cache:6379") == "redis://cache:6379")
        #expect(ConfigSecret.urlPassword.redacting("redis://gate@cache") == "redis://gate@cache")
        #expect(ConfigSecret.urlPassword.redacting("redis:/gate:pw@cache") == "<redacted>@cache")
        #expect(ConfigSecret.value.redacting("anything") == "<redacted>")
    }
}
