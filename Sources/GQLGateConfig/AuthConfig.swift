/// `auth`: the credentials gqlgate adds to every upstream request.
public struct AuthConfig: Sendable, Equatable {
    /// `auth.headers`: headers added to every upstream request, in file order, e.g.
    /// `X-Api-Key: "${UPSTREAM_API_KEY}"`. Default: none. Values are redacted when rendered.
    public var headers: [HeaderField] = []
    /// `auth.bearer_token_file`: a file holding a token sent as `Authorization: Bearer <token>`,
    /// re-read when it changes. Default: none.
    public var bearerTokenFile: String?
    /// `auth.oauth2`: fetch tokens with the OAuth 2.0 client credentials grant. Default: none.
    public var oauth2: OAuth2Config?
    /// `auth.refresh_on_401`: on a 401 from the upstream, get a new token (or re-read the token
    /// file) once and retry once. Default true.
    public var refreshOn401 = true
    /// `auth.ws_init_payload`: merged over the default `connection_init` payload of upstream
    /// WebSockets (the credential headers gqlgate adds). Default `{}`. Values are redacted when rendered.
    public var wsInitPayload = ConfigValue.object([])

    /// The defaults.
    public init() {}
}

extension AuthConfig {
    static let keys = ["headers", "bearer_token_file", "oauth2", "refresh_on_401", "ws_init_payload"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        headers = try map["headers"]?.headerFields() ?? headers
        bearerTokenFile = try map["bearer_token_file"]?.string()
        oauth2 = try map["oauth2"].map(OAuth2Config.init(yaml:))
        refreshOn401 = try map["refresh_on_401"]?.bool() ?? refreshOn401
        if let payload = map["ws_init_payload"] {
            guard case .mapping = payload.node else { throw payload.invalid("a mapping") }
            wsInitPayload = try payload.configValue()
        }
    }
}
