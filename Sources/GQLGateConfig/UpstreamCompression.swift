/// `upstream.compression`: whether the upstream is asked for compressed answers.
public enum UpstreamCompression: String, Sendable, Equatable, CaseIterable {
    /// Asked when the upstream is on another machine (its URL's host is not loopback): a remote
    /// link's bytes shrink, while a sidecar's upstream on loopback spends no CPU compressing
    /// what costs nothing to send.
    case auto
    /// Always asked.
    case on = "true"
    /// Never asked; answers are taken as sent.
    case off = "false"

    /// Whether to ask an upstream at `url` (an `http`/`https` URL) for compressed answers.
    package func asks(upstreamURL url: String) -> Bool {
        switch self {
        case .on: true
        case .off: false
        case .auto: !Self.isLoopback(url: url)
        }
    }

    /// True when `url`'s host is `localhost`, in `127.0.0.0/8` or `::1`.
    static func isLoopback(url: String) -> Bool {
        guard var host = ConfigURL.endpoint(of: url)?.host else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return ListenAddress(host: host, port: 0).isLoopback
    }
}
