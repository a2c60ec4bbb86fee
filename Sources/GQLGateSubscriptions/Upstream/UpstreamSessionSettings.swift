package import GQLGateCore

/// How gqlgate, as the client of the upstream API, runs one upstream WebSocket.
package struct UpstreamSessionSettings: Sendable {
    /// `upstream.ws_protocol`.
    package var subprotocol: WebSocketSubprotocol
    /// How long the upstream may take to answer `connection_init` with `connection_ack`.
    package var ackTimeout: Duration
    /// graphql-transport-ws: a `ping` is sent this often once acknowledged; `.zero` sends none.
    package var keepalive: Duration
    /// graphql-transport-ws: the `pong` must arrive this long after the `ping`.
    package var pongTimeout: Duration
    /// Legacy graphql-ws: once a first `ka` arrived, silence this long means the connection is dead.
    package var keepAliveTimeout: Duration
    /// `subscriptions.reconnect`: the backoff to reconnect with, or nil to end every subscription
    /// with an error when the connection is lost.
    package var reconnect: ReconnectBackoff?
    /// Close the connection once it carried no subscription for this long; nil keeps it open.
    package var idleTimeout: Duration?

    package init(subprotocol: WebSocketSubprotocol = .graphqlTransportWS, ackTimeout: Duration = .seconds(10),
                keepalive: Duration = .seconds(15), pongTimeout: Duration = .seconds(10),
                keepAliveTimeout: Duration = .seconds(30), reconnect: ReconnectBackoff? = ReconnectBackoff(),
                idleTimeout: Duration? = .seconds(30)) {
        self.subprotocol = subprotocol
        self.ackTimeout = ackTimeout
        self.keepalive = keepalive
        self.pongTimeout = pongTimeout
        self.keepAliveTimeout = keepAliveTimeout
        self.reconnect = reconnect
        self.idleTimeout = idleTimeout
    }
}
