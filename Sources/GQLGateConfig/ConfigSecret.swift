/// The keys whose values are secrets, and how such a value is shown: the same
/// way by `check-config`'s printing (``GatewayConfig/renderYAML(redactingSecrets:)``)
/// and by every ``ConfigError``.
package enum ConfigSecret: Sendable, Equatable {
    /// The whole value is secret: `auth.headers` values, `auth.oauth2.client_secret`,
    /// `auth.ws_init_payload` values, `tracing.headers` values.
    case value
    /// The password in the user info of a URL: `redis.url`, `cache.redis_url`, `upstream.url`,
    /// `upstream.ws_url`, `auth.oauth2.token_url`.
    case urlPassword

    /// The keys holding URLs whose user info may carry a password.
    private static let urlKeys: Set = ["redis.url", "cache.redis_url", "upstream.url", "upstream.ws_url", "auth.oauth2.token_url", "tracing.endpoint"]

    /// The text that stands for a secret.
    package static let redacted = "<redacted>"

    /// How the value at `keyPath` is secret, or nil when it is not. A key above a secret
    /// (`auth`, `auth.oauth2`, `cache`) counts as wholly secret, since a value written there
    /// instead of a mapping may be the secret put one level too high.
    /// - Parameter keyPath: A dotted key path such as `auth.headers.X-Api-Key`.
    package static func at(_ keyPath: String) -> ConfigSecret? {
        if urlKeys.contains(keyPath) { return .urlPassword }
        if keyPath == "auth.oauth2.client_secret" || ["auth", "auth.oauth2", "cache", "redis"].contains(keyPath) { return .value }
        let within = ["auth.headers", "auth.ws_init_payload", "tracing.headers"].contains { parent in
            keyPath == parent || keyPath.hasPrefix(parent + ".") || keyPath.hasPrefix(parent + "[")
        }
        return within ? .value : nil
    }

    /// `text` with its secret part replaced by ``redacted``.
    package func redacting(_ text: String) -> String {
        switch self {
        case .value: Self.redacted
        case .urlPassword: Self.redactingPassword(in: text)
        }
    }

    /// `url` with the password of its user info (`scheme://user:password@host`) redacted; the user
    /// info ends at the last `@`, so a password with an unencoded `/` is redacted whole. Text that is
    /// not such a URL but has an `@` is redacted up to its last `@`.
    static func redactingPassword(in url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else {
            guard let at = url.lastIndex(of: "@") else { return url }
            return redacted + String(url[at...])
        }
        let rest = url[schemeEnd.upperBound...]
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return url }
        return String(url[..<url.index(after: colon)]) + redacted + String(url[at...])
    }
}
