package import GQLGatePipeline
package import GQLGateSubscriptions

/// How gqlgate runs its upstream WebSockets (from the `upstream`, `auth` and
/// `subscriptions` keys).
package struct UpstreamSubscriptionSettings: Sendable {
    /// `upstream.ws_url`, or the one derived from `upstream.url`.
    package var url: String
    /// The protocol machine's settings (`upstream.ws_protocol`, keep-alive, reconnect).
    package var session: UpstreamSessionSettings
    /// `subscriptions.dedupe`.
    package var dedupe: Bool
    /// `cache.vary_headers`: with the credential headers, the scope of a shared subscription.
    package var varyHeaders: [String]
    /// `auth.ws_init_payload`, merged over the credential headers in `connection_init`.
    package var initPayload: JSONValue?
    /// `upstream.connect_timeout`.
    package var connectTimeout: Duration
    /// Results a listener may have waiting before it counts as too slow and is ended.
    package var maxQueuedResults: Int

    package init(url: String, session: UpstreamSessionSettings, dedupe: Bool, varyHeaders: [String], initPayload: JSONValue?,
                connectTimeout: Duration, maxQueuedResults: Int = 1024) {
        self.url = url
        self.session = session
        self.dedupe = dedupe
        self.varyHeaders = varyHeaders
        self.initPayload = initPayload
        self.connectTimeout = connectTimeout
        self.maxQueuedResults = maxQueuedResults
    }
}
