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
}
