import GQLGateConfig
import GQLGateExchanges

extension HeadersConfig {
    /// The client header fields (lower case) that `HTTPTransport` forwards upstream.
    var forwardedNames: [String] {
        forward + (forwardClientAuthorization ? ["authorization"] : [])
    }

    /// The client header fields whose values reach the upstream one way or
    /// another: the forwarded ones and `Accept`. `X-Request-Id` is not among
    /// them: a bad one is replaced, never sent.
    var passedOnNames: [String] {
        (forwardedNames + ["accept"]).filter { $0 != "x-request-id" }
    }
}

extension GatewayConfig {
    /// The client fields in the cache's and dedupe's keys: the scope (`cache.vary_headers`) and
    /// every forwarded field but the unkeyed ones.
    var keyHeaders: KeyHeaders {
        KeyHeaders(scope: cache.varyHeaders, forwarded: headers.forwardedNames, unkeyed: headers.unkeyed)
    }
}
