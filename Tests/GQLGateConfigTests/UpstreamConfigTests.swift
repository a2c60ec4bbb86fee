import Testing
@testable import GQLGateConfig

@Suite struct UpstreamConfigTests {
    @Test func defaults() {
        let upstream = GatewayConfig().upstream
        #expect(upstream.url == nil)
        #expect(upstream.wsURL == nil)
        #expect(upstream.effectiveWSURL == nil)
        #expect(upstream.wsProtocol == .graphqlTransportWS)
        #expect(upstream.timeout == .seconds(10))
        #expect(upstream.connectTimeout == .seconds(2))
    }

    @Test func readsEveryKey() throws {
        let upstream = try load("""
            upstream:
              url: http://127.0.0.1:4000/graphql
              ws_url: wss://stream.example/graphql
              ws_protocol: graphql-ws
              timeout: 30s
              connect_timeout: 500ms
            """).upstream
        #expect(upstream.url == "http://127.0.0.1:4000/graphql")
        #expect(upstream.wsURL == "wss://stream.example/graphql")
        #expect(upstream.effectiveWSURL == "wss://stream.example/graphql")
        #expect(upstream.wsProtocol == .graphqlWS)
        #expect(upstream.timeout == .seconds(30))
        #expect(upstream.connectTimeout == .milliseconds(500))
    }

    @Test(arguments: [
        ("http://127.0.0.1:4000/graphql", "ws://127.0.0.1:4000/graphql"),
        ("https://api.example/graphql", "wss://api.example/graphql"),
        ("HTTPS://api.example/graphql", "wss://api.example/graphql"),
    ])
    func derivesTheWebSocketURL(url: String, expected: String) {
        var upstream = UpstreamConfig()
        upstream.url = url
        #expect(upstream.effectiveWSURL == expected)
    }

    @Test(arguments: ["ftp://example/graphql", "127.0.0.1:4000", "http://", "ws://api.example/graphql", "http://a b/"])
    func rejectsNonHTTPURLs(url: String) {
        #expect(loadError("upstream: {url: \"\(url)\"}")
            == "upstream.url: \(ConfigError.quoted(url)) is not valid: expected a http:// or https:// URL with a host")
    }

    @Test func rejectsNonWebSocketURLs() {
        #expect(loadError("upstream: {ws_url: \"https://api.example/graphql\"}")
            == #"upstream.ws_url: "https://api.example/graphql" is not valid: expected a ws:// or wss:// URL with a host"#)
    }

    @Test func rejectsUnknownProtocols() {
        #expect(loadError("upstream: {ws_protocol: subscriptions-transport-ws}")
            == #"upstream.ws_protocol: "subscriptions-transport-ws" is not valid: expected one of graphql-transport-ws, graphql-ws"#)
    }

    @Test func trafficProtectionIsOffByDefault() {
        let upstream = GatewayConfig().upstream
        #expect(upstream.maxConcurrency == 0)
        #expect(upstream.queueTimeout == .seconds(1))
        #expect(upstream.circuitBreaker == CircuitBreakerConfig())
        #expect(!upstream.circuitBreaker.enabled)
    }

    @Test func readsTheTrafficProtectionKeys() throws {
        let upstream = try load("""
            upstream:
              max_concurrency: 4
              queue_timeout: 250ms
              circuit_breaker: {enabled: true, error_ratio: 0.25, min_requests: 5, window: 30s, open_for: 2s}
            """).upstream
        #expect(upstream.maxConcurrency == 4)
        #expect(upstream.queueTimeout == .milliseconds(250))
        let breaker = upstream.circuitBreaker
        #expect(breaker.enabled && breaker.errorRatio == 0.25 && breaker.minRequests == 5)
        #expect(breaker.window == .seconds(30) && breaker.openFor == .seconds(2))
        #expect(loadError("upstream: {circuit_breaker: {error_ratio: 2}}")?.hasPrefix("upstream.circuit_breaker.error_ratio") == true)
        #expect(loadError("upstream: {circuit_breaker: {open_for: 0s}}")?.hasPrefix("upstream.circuit_breaker.open_for") == true)
    }
}
