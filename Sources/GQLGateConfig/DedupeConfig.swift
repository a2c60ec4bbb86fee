/// `dedupe`: identical in-flight queries in one cache scope share one upstream request.
public struct DedupeConfig: Sendable, Equatable {
    /// `dedupe.enabled`: share identical in-flight queries. Default true.
    public var enabled = true

    /// The defaults.
    public init() {}
}

extension DedupeConfig {
    static let keys = ["enabled"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
    }
}
