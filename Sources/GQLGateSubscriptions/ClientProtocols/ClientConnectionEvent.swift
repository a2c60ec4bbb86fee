@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// What happens to a client WebSocket connection, fed to its protocol state
/// machine by the loop that owns the socket.
package enum ClientConnectionEvent: Sendable, Equatable {
    /// The WebSocket is open; deliver this first.
    case opened
    /// A text message from the client.
    case message(String)
    /// The caller accepted the `connection_init` payload it was asked to authenticate.
    case initAccepted(ackPayload: JSONValue?)
    /// The caller refused the `connection_init` payload.
    case initRejected(message: String)
    /// A result of operation `id`.
    case result(id: String, payload: SerializedJSON)
    /// Operation `id` failed with GraphQL errors and is over.
    case failed(id: String, errors: [JSONValue])
    /// Operation `id` has no more results.
    case completed(id: String)
    /// The timer requested by the last `wakeUp(at:)` fired (early or late ticks are harmless).
    case timer
    /// The socket is gone (peer closed it, or it failed); nothing more can be sent.
    case closed
    /// The gateway is draining: end every operation and close.
    case shutdown
}

/// What a client protocol state machine asks the connection to do, in order.
package enum ClientConnectionAction: Sendable, Equatable {
    /// Send a text message.
    case send(String)
    /// Send a close frame; nothing is sent after it.
    case close(WebSocketClose)
    /// Decide whether the `connection_init` payload (with the upgrade request's
    /// headers) is allowed, then deliver `initAccepted` or `initRejected`.
    case authenticate(payload: JSONValue?)
    /// Run operation `id` (any kind) and deliver its results as events.
    case startOperation(id: String, request: GraphQLRequest)
    /// Stop operation `id`; deliver no more events for it.
    case stopOperation(id: String)
    /// Deliver `timer` at this instant, replacing any earlier request.
    case wakeUp(at: MonotonicInstant)
}

/// A client-facing subscription protocol as a value-type state machine:
/// events in, actions out, time passed in.
package protocol ClientProtocolStateMachine: Sendable {
    /// Applies `event`, observed at `now`, and returns what to do, in order.
    mutating func handle(_ event: ClientConnectionEvent, now: MonotonicInstant) -> [ClientConnectionAction]
    /// What `handle(.result(id:payload:), now:)` does, without an array of
    /// actions (a fanned-out event is one per client): the message to send,
    /// or nil when operation `id` is not running.
    mutating func resultMessage(id: String, payload: SerializedJSON, now: MonotonicInstant) -> String?
}

/// The state machine for the subprotocol a client's upgrade selected.
package func makeClientProtocolStateMachine(for subprotocol: WebSocketSubprotocol,
                                           settings: ClientProtocolSettings) -> any ClientProtocolStateMachine {
    switch subprotocol {
    case .graphqlTransportWS: GraphQLTransportWSServer(settings: settings)
    case .graphqlWS: GraphQLWSServer(settings: settings)
    }
}
