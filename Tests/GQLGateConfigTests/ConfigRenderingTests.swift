import Testing
@testable import GQLGateConfig

@Suite struct ConfigRenderingTests {
    /// A configuration with every key away from its default, secrets included.
    private static let everyKeyChanged = """
        server: {listen: "[::1]:9000", path: /gql, max_body_bytes: 2MiB, threads: 2, loops: 3, drain_timeout: 30s}
        upstream:
          url: https://api.example/graphql
          ws_url: wss://api.example/ws
          ws_protocol: graphql-ws
          timeout: 1500ms
          connect_timeout: 1s
        auth:
          headers:
            X-Api-Key: "k-${KEY}"
          bearer_token_file: /run/token
          oauth2: {token_url: "https://id.example/token", client_id: gqlgate, client_secret: "${SECRET}", scope: read, client_auth: post}
          refresh_on_401: false
          ws_init_payload: {token: "t", nested: {list: [1, 2.5, true, null, "$${literal}"]}}
        headers: {forward: [x-one], forward_client_authorization: true}
        clients: {api_keys_file: /etc/keys, allow_anonymous: true}
        retry: {max_attempts: 4, base_delay: 10ms, max_delay: 1m, on_status: [500], max_retry_after: 1s, budget: 0.05, idempotent_mutations: true}
        cache:
          enabled: true
          backend: redis
          redis_url: redis://cache:6379
          redis_key_prefix: "shop:"
          max_bytes: 1GB
          default_ttl: 1h
          types: {Character: 1h, Review: 10s}
          vary_headers: [authorization, x-tenant]
          stale_while_revalidate: 5s
          stale_if_error: 10s
          invalidate_on_mutation: false
        dedupe: {enabled: false}
        apq: {enabled: false, store: redis, upstream: true}
        limits: {max_depth: 3, max_aliases: 1, max_document_bytes: 1000}
        subscriptions: {dedupe: false, keepalive: 0s, reconnect: false, max_per_connection: 1, init_timeout: 1s}
        logging: {level: trace, format: text}
        metrics: {enabled: false}
        admin: {listen: "127.0.0.1:8088", token_file: /run/admin-token}
        """

    private let environment = ["KEY": "abc", "SECRET": "s3cret"]

    @Test func defaultsRenderAndReloadEqual() throws {
        let text = GatewayConfig().renderYAML()
        #expect(text.hasPrefix("server:\n  listen: \"127.0.0.1:8080\"\n  path: \"/graphql\"\n  max_body_bytes: 1MiB\n"))
        #expect(try load(text) == GatewayConfig())
    }

    @Test func everyKeyRoundTripsWithoutRedaction() throws {
        let config = try load(Self.everyKeyChanged, environment: environment)
        #expect(config != GatewayConfig())
        #expect(try load(config.renderYAML(redactingSecrets: false)) == config)
    }

    /// Keys are never expanded, so they print as they are, `${` included; values print `${` as `$${`
    /// (found by the ConfigLoading fuzzer: a payload key gained a `$` on every print).
    @Test func keysWithADollarBraceRoundTrip() throws {
        let config = try load(#"auth: {ws_init_payload: {"a${b": "c$${d", "n": {"e${f": 1}}, headers: {X-A: "v"}}"#)
        let printed = config.renderYAML(redactingSecrets: false)
        #expect(printed.contains(#""a${b": "c$${d""#), "\(printed)")
        #expect(try load(printed) == config)
        #expect(try load(printed).renderYAML(redactingSecrets: false) == printed)
    }

    @Test func secretsAreRedacted() throws {
        let config = try load(Self.everyKeyChanged, environment: environment)
        let text = config.renderYAML()
        #expect(!text.contains("abc"))
        #expect(!text.contains("s3cret"))
        #expect(text.contains("    X-Api-Key: \"<redacted>\"\n"))
        #expect(text.contains("    client_secret: \"<redacted>\"\n"))
        #expect(text.contains("  ws_init_payload:\n    token: \"<redacted>\"\n    nested: \"<redacted>\"\n"))
        #expect(text.contains("    client_id: \"gqlgate\"\n"))
    }

    @Test func theRedisPasswordIsRedacted() throws {
        var config = GatewayConfig()
        config.cache.redisURL = "redis://gate:s3cret@cache:6379/2"
        #expect(config.renderYAML().contains("  redis_url: \"redis://gate:<redacted>@cache:6379/2\"\n"))
        #expect(config.renderYAML(redactingSecrets: false).contains("s3cret"))
        config.cache.redisURL = "redis://cache:6379/2"
        #expect(config.renderYAML().contains("  redis_url: \"redis://cache:6379/2\"\n"))
    }

    @Test func redactedTextReloadsEqualButForTheSecrets() throws {
        let config = try load(Self.everyKeyChanged, environment: environment)
        var expected = config
        expected.auth.headers = [HeaderField(name: "X-Api-Key", value: ConfigSecret.redacted)]
        expected.auth.oauth2?.clientSecret = ConfigSecret.redacted
        expected.auth.wsInitPayload = .object([
            .init(key: "token", value: .string(ConfigSecret.redacted)),
            .init(key: "nested", value: .string(ConfigSecret.redacted)),
        ])
        #expect(try load(config.renderYAML()) == expected)
    }

    @Test func dollarBracesSurviveTheRoundTrip() throws {
        var config = GatewayConfig()
        config.auth.bearerTokenFile = "/run/${not-a-var}/$${x}"
        let text = config.renderYAML()
        #expect(text.contains(#"bearer_token_file: "/run/$${not-a-var}/$$${x}""#))
        #expect(try load(text) == config)
    }

    /// The C1 controls and U+FFFE, which a YAML reader refuses, and the line breaks NEL, U+2028 and
    /// U+2029, which it folds in a quoted scalar, print escaped (the ConfigLoading fuzzer's round trip
    /// failed on them: `"\x84"` printed as it is did not load, `"a\Nb"` read back as `"a b"`).
    @Test func charactersYAMLDoesNotReadAsTheyArePrintEscaped() throws {
        let config = try load(#"""
            cache: {redis_key_prefix: "a\x84b\N c \L d\Pe\uFEFF\uFFFE"}
            auth: {ws_init_payload: {"k\N": ["\x9f \L"]}}
            """#)
        #expect(config.cache.redisKeyPrefix == "a\u{84}b\u{85} c \u{2028} d\u{2029}e\u{FEFF}\u{FFFE}")
        let printed = config.renderYAML(redactingSecrets: false)
        #expect(printed.contains(#"  redis_key_prefix: "a\u0084b\u0085 c \u2028 d\u2029e\ufeff\ufffe"\#n"#), "\(printed)")
        #expect(printed.contains(#"  ws_init_payload:\#n    "k\u0085": ["\u009f \u2028"]\#n"#), "\(printed)")
        #expect(try load(printed) == config)
        #expect(try load(printed).renderYAML(redactingSecrets: false) == printed)
    }

    /// An empty key prints quoted (`: 1` alone does not load), and a key longer than a YAML reader
    /// reads as an implicit key prints as an explicit one, `? key` then `: value` (printed as
    /// `: 1` and `TTT…: 1s`, neither loaded: the ConfigLoading fuzzer's round trip failed on them).
    @Test func emptyAndLongKeysPrintSoTheyLoad() throws {
        let long = String(repeating: "T", count: 1_100)
        let config = try load("""
            auth:
              ws_init_payload:
                "": 1
                n: {? "\(long)": 2, "": 3}
            cache:
              types:
                ? \(long)
                : 1s
            """)
        #expect(config.cache.types == [.init(typeName: long, ttl: .seconds(1))])
        let printed = config.renderYAML(redactingSecrets: false)
        #expect(printed.contains("  ws_init_payload:\n    \"\": 1\n    n: {? \"\(long)\": 2, \"\": 3}\n"), "\(printed)")
        #expect(printed.contains("  types:\n    ? \(long)\n    : 1s\n"), "\(printed)")
        #expect(try load(printed) == config)
        #expect(try load(printed).renderYAML(redactingSecrets: false) == printed)
    }

    /// A key of 1024 characters (quotes included) is the longest a YAML reader takes as an implicit key.
    @Test func keysUpTo1024CharactersStayImplicit() throws {
        let (a, b, c) = (String(repeating: "a", count: 1_024), String(repeating: "b", count: 1_025), String(repeating: " ", count: 1_022))
        var config = GatewayConfig()
        config.auth.wsInitPayload = .object([.init(key: a, value: .int(1)), .init(key: b, value: .int(2)), .init(key: c, value: .int(3))])
        let printed = config.renderYAML(redactingSecrets: false)
        #expect(printed.contains("  ws_init_payload:\n    \(a): 1\n    ? \(b)\n    : 2\n    \"\(c)\": 3\n"))
        #expect(try load(printed) == config)
    }

    @Test func unusualKeysAreQuoted() throws {
        var config = GatewayConfig()
        config.auth.headers = [HeaderField(name: "X-Weird#Name", value: "v")]
        let text = config.renderYAML(redactingSecrets: false)
        #expect(text.contains(#"    "X-Weird#Name": "v""#))
        #expect(try load(text) == config)
    }
}
