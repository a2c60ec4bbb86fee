import Testing
@testable import GQLGateConfig

@Suite struct YAMLReaderTests {
    @Test func rejectsUnknownKeysAtTheTop() {
        #expect(loadError("servr: {}")
            == "servr: unknown key (allowed: server, upstream, auth, headers, clients, retry, cache, redis, dedupe, apq, "
            + "persisted_documents, limits, schema, demand_control, subscriptions, logging, metrics, cors, csrf, tracing, compression, admin)")
    }

    @Test func rejectsUnknownKeysInASection() {
        #expect(loadError("upstream:\n  timout: 5s\n")
            == "upstream.timout: unknown key (allowed: url, ws_url, ws_protocol, timeout, connect_timeout, max_concurrency, queue_timeout, circuit_breaker, compression, max_response_bytes, max_response_bytes_in_flight)")
    }

    @Test func rejectsUnknownKeysInANestedSection() {
        #expect(loadError("auth:\n  oauth2:\n    token_url: https://id.example/token\n    secret: x\n")
            == "auth.oauth2.secret: unknown key (allowed: token_url, client_id, client_secret, scope, client_auth)")
    }

    @Test func rejectsUnknownKeysEvenWithNullValues() {
        #expect(loadError("cache:\n  enable:\n") == "cache.enable: unknown key (allowed: enabled, backend, redis_url, redis_key_prefix, "
            + "max_bytes, default_ttl, types, vary_headers, stale_while_revalidate, stale_if_error, invalidate_on_mutation)")
    }

    @Test func namesTheKeyTheValueAndWhatIsAllowed() {
        #expect(loadError("retry: {max_attempts: zero}") == #"retry.max_attempts: "zero" is not valid: expected an integer >= 1"#)
        #expect(loadError("retry: {max_attempts: 0}") == #"retry.max_attempts: "0" is not valid: expected an integer >= 1"#)
        #expect(loadError("retry: {budget: 2}") == #"retry.budget: "2" is not valid: expected a number from 0 to 1"#)
        #expect(loadError("retry: {on_status: [429, 600]}")
            == #"retry.on_status[1]: "600" is not valid: expected an integer from 100 to 599"#)
        #expect(loadError("cache: {enabled: yes}") == #"cache.enabled: "yes" is not valid: expected true or false"#)
        #expect(loadError("logging: {level: verbose}")
            == #"logging.level: "verbose" is not valid: expected one of trace, debug, info, warn, error"#)
        #expect(loadError("upstream: {timeout: 10}") == #"upstream.timeout: "10" is not valid: expected a duration; use a unit: 10s, 10ms"#)
        #expect(loadError("upstream: {timeout: 0s}") == #"upstream.timeout: "0s" is not valid: expected a duration > 0, such as 10s"#)
        #expect(loadError("limits: {max_document_bytes: 0}") == #"limits.max_document_bytes: "0" is not valid: expected a size of at least 1B"#)
    }

    @Test func rejectsWrongShapes() {
        #expect(loadError("server: 5")
            == #"server: "5" is not valid: expected a mapping with keys listen, path, max_body_bytes, threads, loops, drain_timeout, max_connections, max_header_bytes, idle_timeout, header_timeout, body_timeout, write_timeout, tls"#)
        #expect(loadError("server: [a]")
            == "server: a list is not valid: expected a mapping with keys listen, path, max_body_bytes, threads, loops, drain_timeout, max_connections, max_header_bytes, idle_timeout, header_timeout, body_timeout, write_timeout, tls")
        #expect(loadError("retry: {on_status: 429}") == #"retry.on_status: "429" is not valid: expected a list of HTTP statuses"#)
        #expect(loadError("retry: {max_attempts: [1]}") == "retry.max_attempts: a list is not valid: expected an integer >= 1")
        #expect(loadError("upstream: {url: {a: b}}") == "upstream.url: a mapping is not valid: expected a URL")
        #expect(loadError("- server") == "a list is not valid: expected a mapping with keys server, upstream, auth, headers, clients, "
            + "retry, cache, redis, dedupe, apq, persisted_documents, limits, schema, demand_control, subscriptions, logging, metrics, cors, csrf, tracing, compression, admin")
    }

    @Test func rejectsNonScalarKeys() {
        #expect(loadError("cache:\n  types:\n    ? [a]\n    : 1s\n") == "cache.types: keys must be plain strings, not lists or mappings")
    }

    /// YAML tells `1` from `"1"` by their types, and so loads both; the config reads keys as text, so
    /// it had both, and printed the same key twice, which does not load (the ConfigLoading fuzzer's
    /// round trip failed on it).
    @Test func rejectsAKeySetTwiceAsText() {
        let twice = #"key set twice (keys are text: 1 and "1" are the same key)"#
        #expect(loadError(#"auth: {ws_init_payload: {1: a, "1": b}}"#) == "auth.ws_init_payload.1: \(twice)")
        #expect(loadError(#"auth: {ws_init_payload: {n: {true: a, "true": b}}}"#) == "auth.ws_init_payload.n.true: \(twice)")
        #expect(loadError(#"cache: {types: {"on": 1s, on: 2s}}"#) == "cache.types.on: \(twice)")
        #expect(loadError(#"demand_control: {weights: {null: 1, "null": 2}}"#) == "demand_control.weights.null: \(twice)")
    }

    @Test func nullLeavesTheDefault() throws {
        let config = try load("server:\nupstream: ~\nretry:\n  max_attempts: null\n")
        #expect(config == GatewayConfig())
    }

    @Test func quotedNullIsAValue() {
        #expect(loadError("retry: {max_attempts: \"null\"}") == #"retry.max_attempts: "null" is not valid: expected an integer >= 1"#)
    }

    @Test func followsAliases() throws {
        let config = try load("upstream:\n  timeout: &t 3s\n  connect_timeout: *t\n")
        #expect(config.upstream.connectTimeout == .seconds(3))
    }
}
