/// `apq`: automatic persisted queries (clients send a hash instead of the document).
public struct APQConfig: Sendable, Equatable {
    /// `apq.enabled`: accept persisted query hashes from clients. Default true.
    public var enabled = true
    /// `apq.upstream`: also send hashes to the upstream first, the document only when it asks. Default false.
    public var upstream = false

    /// The defaults.
    public init() {}
}

extension APQConfig {
    static let keys = ["enabled", "upstream"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
        upstream = try map["upstream"]?.bool() ?? upstream
    }
}
