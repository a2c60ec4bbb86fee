/// `cors`: which browser origins may call gqlgate, and what their pages may read of the answers.
public struct CORSConfig: Sendable, Equatable {
    /// `cors.allow_origins`: exact origins (`https://app.example.com`) or `"*"`. Default none: no
    /// CORS headers, every preflight refused, WebSocket origins not checked.
    public var allowOrigins: [String] = []
    /// `cors.allow_credentials`: pages may send cookies and read the answers. Default false; never
    /// with `"*"`.
    public var allowCredentials = false
    /// `cors.allow_headers`: the request headers a preflight allows. Default none: the ones the
    /// preflight asks for (`Access-Control-Request-Headers`) are allowed.
    public var allowHeaders: [String] = []
    /// `cors.expose_headers`: answer headers the page may read. Default `[x-request-id, x-cache]`.
    public var exposeHeaders = ["x-request-id", "x-cache"]
    /// `cors.max_age`: how long a browser may keep a preflight's answer. Default 5m.
    public var maxAge = Duration.seconds(300)

    /// The defaults.
    public init() {}

    /// Whether browsers get CORS headers at all (`allow_origins` is set).
    public var isEnabled: Bool { !allowOrigins.isEmpty }
}

extension CORSConfig {
    static let keys = ["allow_origins", "allow_credentials", "allow_headers", "expose_headers", "max_age"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        if let origins = map["allow_origins"] {
            allowOrigins = []
            for element in try origins.list(of: "origins") {
                let origin = try element.string()
                guard origin == "*" || Self.isOrigin(origin) else {
                    throw element.invalid("\"*\" or an origin: scheme://host[:port], no path or trailing slash", value: origin)
                }
                allowOrigins.append(origin)
            }
        }
        allowCredentials = try map["allow_credentials"]?.bool() ?? allowCredentials
        allowHeaders = try map["allow_headers"]?.headerNames() ?? allowHeaders
        exposeHeaders = try map["expose_headers"]?.headerNames() ?? exposeHeaders
        maxAge = try map["max_age"]?.duration() ?? maxAge
    }

    /// `scheme://host[:port]` as a browser sends it in `Origin`: visible ASCII, no path.
    static func isOrigin(_ text: String) -> Bool {
        guard let schemeEnd = text.range(of: "://") else { return false }
        let scheme = text[..<schemeEnd.lowerBound], rest = text[schemeEnd.upperBound...]
        return !scheme.isEmpty && !rest.isEmpty && !rest.contains("/")
            && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
