/// `auth.oauth2`: fetch upstream access tokens with the OAuth 2.0 client credentials grant.
public struct OAuth2Config: Sendable, Equatable {
    /// How the client authenticates to the token endpoint.
    public enum ClientAuth: String, Sendable, Equatable, CaseIterable {
        /// HTTP Basic authentication with the client ID and secret (`client_secret_basic`).
        case basic
        /// The client ID and secret in the form body (`client_secret_post`).
        case post
    }

    /// `auth.oauth2.token_url`: the token endpoint, an http:// or https:// URL. Required.
    public var tokenURL: String
    /// `auth.oauth2.client_id`: the client ID. Required.
    public var clientID: String
    /// `auth.oauth2.client_secret`: the client secret, usually `${VAR}`. Required; redacted when rendered.
    public var clientSecret: String
    /// `auth.oauth2.scope`: the space-separated scopes to ask for. Default: none sent.
    public var scope: String?
    /// `auth.oauth2.client_auth`: `basic` or `post`. Default `basic`.
    public var clientAuth: ClientAuth

    /// Creates an OAuth2 configuration.
    /// - Parameters:
    ///   - tokenURL: The token endpoint.
    ///   - clientID: The client ID.
    ///   - clientSecret: The client secret.
    ///   - scope: The scopes to ask for, or nil to send none.
    ///   - clientAuth: How to send the client credentials.
    public init(tokenURL: String, clientID: String, clientSecret: String, scope: String? = nil, clientAuth: ClientAuth = .basic) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
        self.clientAuth = clientAuth
    }
}

extension OAuth2Config {
    static let keys = ["token_url", "client_id", "client_secret", "scope", "client_auth"]

    /// Reads `auth.oauth2`; missing required keys are left empty for ``GatewayConfig/validate()`` to report.
    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init(tokenURL: "", clientID: "", clientSecret: "")
        tokenURL = try map["token_url"]?.url(schemes: UpstreamConfig.httpSchemes) ?? tokenURL
        clientID = try map["client_id"]?.string() ?? clientID
        clientSecret = try map["client_secret"]?.string() ?? clientSecret
        scope = try map["scope"]?.string()
        clientAuth = try map["client_auth"]?.oneOf(ClientAuth.self) ?? clientAuth
    }
}
