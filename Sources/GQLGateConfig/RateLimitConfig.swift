/// `clients.rate_limit`: a token bucket per client key (per client address
/// without keys), one for everyone, or one per value of a header; kept by
/// each replica, or shared by the fleet through Redis.
public struct RateLimitConfig: Sendable, Equatable {
    /// Where the buckets are kept.
    public enum Store: String, Sendable, Equatable, CaseIterable {
        /// In this process: each replica admits the whole rate.
        case memory
        /// One budget for every replica, settled through the Redis of the `redis` section.
        case redis
    }

    /// What one bucket is shared by.
    public enum Partition: Sendable, Equatable, CustomStringConvertible {
        /// Each client key; each client address when no keys are configured.
        case key
        /// Every client.
        case global
        /// Each value of the named header (lower case); a request without it shares the empty value's.
        case header(String)

        public var description: String {
            switch self {
            case .key: "key"
            case .global: "global"
            case .header(let name): "header:\(name)"
            }
        }
    }

    /// `clients.rate_limit.requests_per_second`: how fast a bucket refills. Default 0 (off).
    public var requestsPerSecond = 0.0
    /// `clients.rate_limit.burst`: how many requests a full bucket holds. Default 0: one
    /// second's requests (at least 1).
    public var burst = 0
    /// `clients.rate_limit.by`: `key`, `global` or `header:NAME`. Default `key`.
    public var by = Partition.key
    /// `clients.rate_limit.store`: `memory` (per replica) or `redis` (one budget for the fleet). Default `memory`.
    public var store = Store.memory
    /// `clients.rate_limit.by_cost`: a request takes its estimated cost in tokens
    /// (at least 1), not 1. Needs `demand_control`. Default false.
    public var byCost = false

    /// The defaults.
    public init() {}

    /// Whether requests are limited at all.
    public var isEnabled: Bool { requestsPerSecond > 0 }

    /// The size of a bucket: `burst`, else one second's requests, at least 1.
    package var effectiveBurst: Int {
        burst > 0 ? burst : max(1, Int(requestsPerSecond.rounded(.up)))
    }
}

extension RateLimitConfig {
    static let keys = ["requests_per_second", "burst", "by", "store", "by_cost"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        requestsPerSecond = try map["requests_per_second"]?.double(0...1_000_000_000) ?? requestsPerSecond
        burst = try map["burst"]?.int(0...1_000_000_000) ?? burst
        store = try map["store"]?.oneOf(Store.self) ?? store
        byCost = try map["by_cost"]?.bool() ?? byCost
        if let by = map["by"] {
            let expected = "key, global or header:NAME"
            let text = try by.text(expected: expected)
            switch text {
            case "key": self.by = .key
            case "global": self.by = .global
            default:
                let name = text.hasPrefix("header:") ? String(text.dropFirst("header:".count)) : ""
                guard name.isHeaderName else { throw by.invalid(expected, value: text) }
                self.by = .header(name.lowercased())
            }
        }
    }
}
