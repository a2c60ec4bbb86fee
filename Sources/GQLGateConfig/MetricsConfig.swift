/// `metrics`: Prometheus metrics at `GET /metrics`.
public struct MetricsConfig: Sendable, Equatable {
    /// `metrics.enabled`: serve `/metrics`. Default true.
    public var enabled = true
    /// `metrics.field_usage`: count each schema coordinate the operations select,
    /// by client (`gqlgate_field_usage_total`, `gqlgate_deprecated_field_usage_total`).
    /// Needs a schema. Default false.
    public var fieldUsage = false
    /// `metrics.client_name_header`: the header naming the client in the field
    /// usage counters. Default `apollographql-client-name`.
    public var clientNameHeader = "apollographql-client-name"

    /// The defaults.
    public init() {}
}

extension MetricsConfig {
    static let keys = ["enabled", "field_usage", "client_name_header"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
        fieldUsage = try map["field_usage"]?.bool() ?? fieldUsage
        if let header = map["client_name_header"] {
            let name = try header.string().lowercased()
            guard name.isHeaderName else { throw header.invalid("a header name", value: name) }
            clientNameHeader = name
        }
    }
}
