/// `headers`: which client request headers gqlgate passes on to the upstream.
public struct HeadersConfig: Sendable, Equatable {
    /// `headers.forward`: client headers passed upstream, lowercased. Setting it replaces the
    /// default list. Default `[accept-language, traceparent, tracestate]`. `X-Request-Id` is always sent.
    public var forward = ["accept-language", "traceparent", "tracestate"]
    /// `headers.forward_client_authorization`: pass the client's `Authorization` header upstream.
    /// Default false.
    public var forwardClientAuthorization = false
    /// `headers.unkeyed`: forwarded headers the upstream's answer does not depend on (trace
    /// context), lowercased: left out of the cache and dedupe keys, which hold every other
    /// forwarded header. Default `[traceparent, tracestate, baggage]`.
    public var unkeyed = ["traceparent", "tracestate", "baggage"]

    /// The defaults.
    public init() {}
}

extension HeadersConfig {
    static let keys = ["forward", "forward_client_authorization", "unkeyed"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        forward = try map["forward"]?.headerNames() ?? forward
        forwardClientAuthorization = try map["forward_client_authorization"]?.bool() ?? forwardClientAuthorization
        unkeyed = try map["unkeyed"]?.headerNames() ?? unkeyed
    }
}
