/// `upstream`: the GraphQL API that gqlgate stands in front of.
public struct UpstreamConfig: Sendable, Equatable {
    /// The WebSocket subprotocols gqlgate can speak to the upstream.
    public enum WebSocketProtocol: String, Sendable, Equatable, CaseIterable {
        /// `graphql-transport-ws`, the protocol of the graphql-ws library.
        case graphqlTransportWS = "graphql-transport-ws"
        /// `graphql-ws`, the legacy protocol of subscriptions-transport-ws.
        case graphqlWS = "graphql-ws"
    }

    /// `upstream.url`: the http:// or https:// URL that queries and mutations go to. No default;
    /// `--upstream` or `GQLGATE_UPSTREAM` can set it.
    public var url: String?
    /// `upstream.ws_url`: the ws:// or wss:// URL for subscriptions. Default: `url` with http
    /// turned into ws and https into wss (see ``effectiveWSURL``).
    public var wsURL: String?
    /// `upstream.ws_protocol`: the WebSocket subprotocol the upstream speaks. Default `graphql-transport-ws`.
    public var wsProtocol = WebSocketProtocol.graphqlTransportWS
    /// `upstream.timeout`: how long one attempt may take, connecting included. Default 10s.
    public var timeout = Duration.seconds(10)
    /// `upstream.connect_timeout`: how long connecting to the upstream may take. Default 2s.
    public var connectTimeout = Duration.seconds(2)

    /// The defaults.
    public init() {}

    /// The WebSocket URL to use: `wsURL`, else `url` with `http://` turned into `ws://` and
    /// `https://` into `wss://`; nil when neither is set.
    public var effectiveWSURL: String? {
        if let wsURL { return wsURL }
        guard let url, let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon].lowercased()
        return (scheme == "https" ? "wss" : "ws") + url[colon...]
    }
}

extension UpstreamConfig {
    static let keys = ["url", "ws_url", "ws_protocol", "timeout", "connect_timeout"]
    static let httpSchemes = ["http", "https"]
    static let wsSchemes = ["ws", "wss"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        url = try map["url"]?.url(schemes: Self.httpSchemes)
        wsURL = try map["ws_url"]?.url(schemes: Self.wsSchemes)
        wsProtocol = try map["ws_protocol"]?.oneOf(WebSocketProtocol.self) ?? wsProtocol
        timeout = try map["timeout"]?.duration(positive: true) ?? timeout
        connectTimeout = try map["connect_timeout"]?.duration(positive: true) ?? connectTimeout
    }
}
