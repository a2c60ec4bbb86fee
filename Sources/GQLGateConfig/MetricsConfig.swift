/// `metrics`: Prometheus metrics at `GET /metrics`.
public struct MetricsConfig: Sendable, Equatable {
    /// `metrics.enabled`: serve `/metrics`. Default true.
    public var enabled = true

    /// The defaults.
    public init() {}
}

extension MetricsConfig {
    static let keys = ["enabled"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
    }
}
