/// `clients`: who may use gqlgate.
public struct ClientsConfig: Sendable, Equatable {
    /// `clients.api_keys_file`: a file with one client key a line; clients send it as `X-Api-Key` or
    /// `Authorization: Bearer`. Default: none (no client authentication).
    public var apiKeysFile: String?
    /// `clients.allow_anonymous`: accept clients without a key. Required to listen beyond loopback
    /// without `api_keys_file`. Default false.
    public var allowAnonymous = false
    /// `clients.rate_limit`: how many requests a client may make. Default off.
    public var rateLimit = RateLimitConfig()

    /// The defaults.
    public init() {}
}

extension ClientsConfig {
    static let keys = ["api_keys_file", "allow_anonymous", "rate_limit"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        apiKeysFile = try map["api_keys_file"]?.string()
        allowAnonymous = try map["allow_anonymous"]?.bool() ?? allowAnonymous
        rateLimit = try map["rate_limit"].map(RateLimitConfig.init(yaml:)) ?? rateLimit
    }
}
