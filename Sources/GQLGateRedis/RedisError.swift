/// Why a Redis command has no reply.
package enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `cache.redis_url` is not a usable redis:// URL.
    case invalidURL(String)
    /// There is no connection (refused, lost, or waiting before the next attempt).
    case unavailable(String)
    /// No reply within the command timeout.
    case timedOut
    /// A reply of a shape the caller does not expect.
    case unexpectedReply(String)
    /// The TLS settings cannot be used (a file that cannot be read or
    /// parsed), or a TLS session cannot be set up.
    case tls(String)

    package var description: String {
        switch self {
        case .invalidURL(let message): "invalid Redis URL: \(message)"
        case .unavailable(let reason): "Redis unavailable: \(reason)"
        case .timedOut: "Redis did not reply in time"
        case .unexpectedReply(let reply): "unexpected Redis reply: \(reply)"
        case .tls(let message): "Redis TLS: \(message)"
        }
    }
}
