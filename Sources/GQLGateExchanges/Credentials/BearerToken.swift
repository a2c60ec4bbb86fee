package import GQLGatePipeline

/// An upstream access token and which one it is: every new token gets a
/// higher `generation`, so a 401 retires only the token it was sent with.
package struct BearerToken: Sendable, Equatable {
    package var value: String
    package var generation: UInt64

    package init(value: String, generation: UInt64) {
        self.value = value
        self.generation = generation
    }
}

/// Where upstream bearer tokens come from (a token file, an OAuth2 token
/// endpoint). Implementations are shared by every loop.
package protocol BearerTokenSource: Sendable {
    /// A token to send now; may wait for the one fetch in flight. Throws
    /// 502 `UPSTREAM_AUTH_FAILED` when there is none to send.
    func token() async throws(GatewayError) -> BearerToken
    /// The upstream answered 401 to `token`: the next `token()` brings a
    /// fresh one (once, however many requests saw the same token refused).
    func rejected(_ token: BearerToken)
}
