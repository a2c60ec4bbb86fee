/// `admin`: the admin API (`POST /cache/purge`, `GET /schema`), on a listener
/// of its own, never on the client port.
public struct AdminConfig: Sendable, Equatable {
    /// `admin.listen`: the address of the admin listener, e.g. `127.0.0.1:8088`.
    /// Default none (`""`): no admin listener. Beyond loopback it needs `token_file`;
    /// it cannot be `server.listen`'s port on the same host.
    public var listen: ListenAddress?
    /// `admin.token_file`: a file holding the token admin requests must carry
    /// as `Authorization: Bearer <token>` (surrounding whitespace, a trailing
    /// newline, trimmed); read again when it changes and on SIGHUP. Default none:
    /// no token asked (allowed only while `listen` is loopback).
    public var tokenFile: String?

    /// The defaults.
    public init() {}

    /// Whether the admin listener is on.
    public var isEnabled: Bool { listen != nil }
}

extension AdminConfig {
    static let keys = ["listen", "token_file"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        if let value = map["listen"], try !value.string().isEmpty {
            listen = try value.parsed(expected: "HOST:PORT", ListenAddress.init(parsing:)).value
        }
        if let path = try map["token_file"]?.string(), !path.isEmpty { tokenFile = path }
    }
}
