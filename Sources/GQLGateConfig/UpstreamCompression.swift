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
    public func asks(upstreamURL url: String) -> Bool {
        switch self {
        case .on: true
        case .off: false
        case .auto: !Self.isLoopback(url: url)
        }
    }

    /// True when `url`'s host is `localhost`, in `127.0.0.0/8` or `::1`.
    static func isLoopback(url: String) -> Bool {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        rest = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        let host: Substring
        if rest.first == "[", let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
        } else {
            host = rest.prefix { $0 != ":" }
        }
        return ListenAddress(host: String(host), port: 0).isLoopback
    }
}
