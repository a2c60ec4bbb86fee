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
    /// `upstream.max_concurrency`: upstream HTTP attempts in flight at once; the rest wait, oldest
    /// first. Default 0 (unlimited).
    public var maxConcurrency = 0
    /// `upstream.queue_timeout`: how long a request waits for one of `max_concurrency`'s places
    /// before it is answered 503 `UPSTREAM_OVERLOADED`. Default 1s.
    public var queueTimeout = Duration.seconds(1)
    /// `upstream.circuit_breaker`.
    public var circuitBreaker = CircuitBreakerConfig()
    /// `upstream.compression`: ask the upstream for compressed answers (every coding libcurl
    /// decodes) and decode them. Default `auto`: when the upstream is not on loopback.
    public var compression = UpstreamCompression.auto
    /// `upstream.max_response_bytes`: the largest upstream answer body taken, counted decoded;
    /// past it 502 `UPSTREAM_RESPONSE_TOO_LARGE`. Default 64MiB.
    public var maxResponseBytes = 64 << 20
    /// `upstream.max_response_bytes_in_flight`: what the decoded bodies of every upstream answer
    /// being received may hold together; the answer that would pass it is cut off (502
    /// `UPSTREAM_RESPONSE_TOO_LARGE`). Default 256MiB. Needs a restart.
    public var maxResponseBytesInFlight = 256 << 20

    /// The defaults.
    public init() {}

    /// The WebSocket URL to use: `wsURL`, else `url` with `http://` turned into `ws://` and
    /// `https://` into `wss://`; nil when neither is set.
    package var effectiveWSURL: String? {
        if let wsURL { return wsURL }
        guard let url, let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon].lowercased()
        return (scheme == "https" ? "wss" : "ws") + url[colon...]
    }
}

extension UpstreamConfig {
    static let keys = ["url", "ws_url", "ws_protocol", "timeout", "connect_timeout", "max_concurrency", "queue_timeout", "circuit_breaker",
                       "compression", "max_response_bytes", "max_response_bytes_in_flight"]
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
        maxConcurrency = try map["max_concurrency"]?.int(0...1_000_000) ?? maxConcurrency
        queueTimeout = try map["queue_timeout"]?.duration() ?? queueTimeout
        circuitBreaker = try map["circuit_breaker"].map(CircuitBreakerConfig.init(yaml:)) ?? circuitBreaker
        compression = try map["compression"]?.oneOf(UpstreamCompression.self) ?? compression
        maxResponseBytes = try map["max_response_bytes"]?.size(minimum: 1) ?? maxResponseBytes
        maxResponseBytesInFlight = try map["max_response_bytes_in_flight"]?.size(minimum: 1) ?? maxResponseBytesInFlight
    }
}
