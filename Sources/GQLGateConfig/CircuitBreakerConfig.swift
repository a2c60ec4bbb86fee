/// `upstream.circuit_breaker`: stop sending to an upstream that keeps failing.
public struct CircuitBreakerConfig: Sendable, Equatable {
    /// `enabled`: default false.
    public var enabled = false
    /// `error_ratio`: the share of failed attempts in `window` that opens the breaker. Default 0.5.
    public var errorRatio = 0.5
    /// `min_requests`: attempts in `window` below which the breaker stays closed. Default 20.
    public var minRequests = 20
    /// `window`: how far back attempts count. Default 10s.
    public var window = Duration.seconds(10)
    /// `open_for`: how long requests fail fast before one probe may go. Default 5s.
    public var openFor = Duration.seconds(5)

    /// The defaults.
    public init() {}
}

extension CircuitBreakerConfig {
    static let keys = ["enabled", "error_ratio", "min_requests", "window", "open_for"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
        errorRatio = try map["error_ratio"]?.double(0...1) ?? errorRatio
        minRequests = try map["min_requests"]?.int(1...Int.max) ?? minRequests
        window = try map["window"]?.duration(positive: true) ?? window
        openFor = try map["open_for"]?.duration(positive: true) ?? openFor
    }
}
