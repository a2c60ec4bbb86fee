import GQLGateConfig

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
