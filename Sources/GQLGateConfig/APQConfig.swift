/// `apq`: automatic persisted queries (clients send a hash instead of the document).
public struct APQConfig: Sendable, Equatable {
    /// Where registered queries are kept (`apq.store`).
    public enum Store: String, Sendable, Equatable, CaseIterable {
        /// In this process only: each replica learns each hash from its clients.
        case memory
        /// In memory and in the Redis of the `redis` section: a hash registered
        /// on one replica is known on all.
        case redis
    }

    /// `apq.enabled`: accept persisted query hashes from clients. Default true.
    public var enabled = true
    /// `apq.store`: `memory` or `redis`. Default `memory`.
    public var store = Store.memory
    /// `apq.upstream`: also send hashes to the upstream first, the document only when it asks. Default false.
    public var upstream = false

    /// The defaults.
    public init() {}
}

extension APQConfig {
    static let keys = ["enabled", "store", "upstream"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
        store = try map["store"]?.oneOf(Store.self) ?? store
        upstream = try map["upstream"]?.bool() ?? upstream
    }
}
