#if canImport(Glibc)
import Glibc
#endif

/// The proxy settings libcurl reads from the environment, read once.
///
/// Left to itself, libcurl looks up `no_proxy`, `http_proxy` and friends
/// with `getenv` on every transfer: five scans of the environment per
/// upstream request, more in a pod with a long environment. The client reads
/// them once, by libcurl's own rules, and sets `CURLOPT_PROXY` and
/// `CURLOPT_NOPROXY` on each transfer instead; which proxy a URL gets does
/// not change.
///
/// libcurl's rules: `http://` URLs use `http_proxy` (lower case only: a CGI
/// environment can set `HTTP_PROXY` from a request header), `https://` URLs
/// `https_proxy` then `HTTPS_PROXY`; either falls back to `all_proxy` then
/// `ALL_PROXY`. Hosts matched by `no_proxy` (else `NO_PROXY`) go direct. A
/// variable that is set but empty counts as set: it means "no proxy".
struct ProxyEnvironment: Sendable {
    /// Proxy for `http://` URLs; empty: none.
    var http: String
    /// Proxy for `https://` URLs; empty: none.
    var https: String
    /// libcurl's `no_proxy` list; empty: none.
    var noProxy: String

    /// This process's settings, read at first use.
    static let process = ProxyEnvironment()

    /// - Parameter lookup: the environment (tests pass their own).
    init(lookup: (String) -> String? = ProxyEnvironment.processEnvironment) {
        let fallback = lookup("all_proxy") ?? lookup("ALL_PROXY")
        http = lookup("http_proxy") ?? fallback ?? ""
        https = lookup("https_proxy") ?? lookup("HTTPS_PROXY") ?? fallback ?? ""
        noProxy = lookup("no_proxy") ?? lookup("NO_PROXY") ?? ""
    }

    /// The proxy for `url`, as `CURLOPT_PROXY` takes it (empty: go direct).
    func proxy(for url: String) -> String {
        let scheme = url.utf8.prefix(8)
        let isHTTPS = scheme.count == 8 && zip(scheme, "https://".utf8).allSatisfy { $0 | 0x20 == $1 }
        return isHTTPS ? https : http
    }

    /// Whether every URL gets the same proxy (usually none), so a handle can be set up once.
    var isSameForEveryURL: Bool { http == https }

    /// This process's environment variable `name`, if set.
    static func processEnvironment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
