/// `tracing`: OpenTelemetry spans exported as OTLP over HTTP (protobuf).
public struct TracingConfig: Sendable, Equatable {
    /// `tracing.enabled`: make and export spans. Default false; off, nothing runs.
    public var enabled = false
    /// `tracing.endpoint`: the OTLP/HTTP traces URL. Default `http://127.0.0.1:4318/v1/traces`.
    public var endpoint = "http://127.0.0.1:4318/v1/traces"
    /// `tracing.sample_ratio`: the share of new traces sampled, 0 to 1; a client's
    /// `traceparent` decides for its trace (parent-based). Default 1.0.
    public var sampleRatio = 1.0
    /// `tracing.service_name`: the `service.name` resource attribute. Default `gqlgate`.
    public var serviceName = "gqlgate"
    /// `tracing.headers`: headers sent with every export (`${VAR}` allowed). Values are redacted when rendered.
    public var headers: [HeaderField] = []

    /// The defaults.
    public init() {}
}

extension TracingConfig {
    static let keys = ["enabled", "endpoint", "sample_ratio", "service_name", "headers"]
    static let schemes = ["http", "https"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
        endpoint = try map["endpoint"]?.url(schemes: Self.schemes) ?? endpoint
        sampleRatio = try map["sample_ratio"]?.double(0...1) ?? sampleRatio
        serviceName = try map["service_name"]?.string() ?? serviceName
        headers = try map["headers"]?.headerFields() ?? headers
    }
}

extension TracingConfig {
    /// Applies the `OTEL_*` environment overrides, each checked like the key it replaces.
    mutating func apply(_ overrides: ConfigOverrides) throws(ConfigError) {
        if let base = overrides.otlpEndpoint {
            let url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/traces"
            do {
                endpoint = try ConfigURL.check(url, schemes: Self.schemes)
            } catch {
                throw error.at("OTEL_EXPORTER_OTLP_ENDPOINT")
            }
        }
        if let serviceName = overrides.serviceName { self.serviceName = serviceName }
        if let text = overrides.sampleRatio {
            guard let ratio = Double(text), (0...1).contains(ratio) else {
                throw .invalid(text, expected: "a number from 0 to 1", keyPath: "OTEL_TRACES_SAMPLER_ARG")
            }
            sampleRatio = ratio
        }
    }
}
