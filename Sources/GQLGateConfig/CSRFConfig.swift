/// `csrf`: refusing requests a browser could send cross-site without a preflight.
public struct CSRFConfig: Sendable, Equatable {
    /// `csrf.enabled`: a request runs only with a `Content-Type` other than `text/plain`,
    /// `multipart/form-data` or `application/x-www-form-urlencoded` (none counts as one of those),
    /// or with one of `required_headers`. Default true.
    public var enabled = true
    /// `csrf.required_headers`: any of them lets a request with a simple or no `Content-Type`
    /// through. Default `[x-apollo-operation-name, apollo-require-preflight]`.
    public var requiredHeaders = ["x-apollo-operation-name", "apollo-require-preflight"]

    /// The defaults.
    public init() {}
}

extension CSRFConfig {
    static let keys = ["enabled", "required_headers"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
        requiredHeaders = try map["required_headers"]?.headerNames() ?? requiredHeaders
    }
}
