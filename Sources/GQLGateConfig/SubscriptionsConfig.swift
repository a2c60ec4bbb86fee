/// `subscriptions`: how subscriptions are carried between clients and the upstream.
public struct SubscriptionsConfig: Sendable, Equatable {
    /// `subscriptions.dedupe`: clients with the same subscription in one scope share one upstream
    /// subscription. Default true.
    public var dedupe = true
    /// `subscriptions.keepalive`: how often pings are sent on idle WebSockets; 0s sends none. Default 15s.
    public var keepalive = Duration.seconds(15)
    /// `subscriptions.reconnect`: reconnect a lost upstream WebSocket and resume its subscriptions.
    /// Default true.
    public var reconnect = true
    /// `subscriptions.max_per_connection`: the most subscriptions on one client connection. Default 100.
    public var maxPerConnection = 100
    /// `subscriptions.init_timeout`: a client WebSocket without `connection_init` by then is closed
    /// with 4408. Default 3s.
    public var initTimeout = Duration.seconds(3)

    /// The defaults.
    public init() {}
}

extension SubscriptionsConfig {
    static let keys = ["dedupe", "keepalive", "reconnect", "max_per_connection", "init_timeout"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        dedupe = try map["dedupe"]?.bool() ?? dedupe
        keepalive = try map["keepalive"]?.duration() ?? keepalive
        reconnect = try map["reconnect"]?.bool() ?? reconnect
        maxPerConnection = try map["max_per_connection"]?.int(1...Int.max) ?? maxPerConnection
        initTimeout = try map["init_timeout"]?.duration(positive: true) ?? initTimeout
    }
}
