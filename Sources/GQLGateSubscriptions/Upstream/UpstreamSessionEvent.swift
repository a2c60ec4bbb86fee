@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// What happens to gqlgate's WebSocket to the upstream, fed to its
/// `UpstreamSession` by the loop that owns the socket.
package enum UpstreamSessionEvent: Sendable, Equatable {
    /// Start upstream subscription `id` (ids come from `SubscriptionRegistry`).
    case subscribe(id: String, request: GraphQLRequest)
    /// End upstream subscription `id`: nobody listens any more.
    case unsubscribe(id: String)
    /// The socket asked for by `connect` is open with the configured subprotocol;
    /// `initPayload` is the `connection_init` payload with the credentials of now
    /// (see `UpstreamInitPayload`).
    case connected(initPayload: JSONValue?)
    /// A text message from the upstream.
    case message(String)
    /// The socket closed, failed, or could not be opened. Not delivered for a
    /// socket the session itself asked to `close`.
    case disconnected
    /// The timer requested by the last `wakeUp(at:)` fired (early or late ticks are harmless).
    case timer
    /// The gateway is stopping: close the connection and reconnect no more.
    case shutdown
}

/// What an `UpstreamSession` asks the loop to do, in order.
package enum UpstreamSessionAction: Sendable, Equatable {
    /// Open a WebSocket to `upstream.ws_url` offering the configured subprotocol,
    /// then deliver `connected` or `disconnected`.
    case connect
    /// Send a text message.
    case send(String)
    /// Send a close frame and drop the socket; the session already counts it as gone.
    case close(WebSocketClose)
    /// Deliver `timer` at this instant, replacing any earlier request.
    case wakeUp(at: MonotonicInstant)
    /// A result for upstream subscription `id`: fan it out to its listeners.
    case result(id: String, payload: SerializedJSON)
    /// Upstream subscription `id` failed with these GraphQL errors and is over.
    case failed(id: String, errors: [JSONValue])
    /// Upstream subscription `id` is over.
    case completed(id: String)
    /// The connection was lost; these subscriptions (in the order they were
    /// made) stay live and are subscribed again once a new connection is acknowledged.
    case connectionLost(resubscribing: [String])
}
