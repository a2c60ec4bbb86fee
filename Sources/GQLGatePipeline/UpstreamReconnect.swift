/// The upstream WebSocket carrying a subscription was lost and is being
/// reconnected (`subscriptions.reconnect`): an event of the subscription's span.
package struct UpstreamReconnect: Sendable, Equatable {
    /// Why the connection was lost.
    package enum Reason: String, Sendable {
        /// The upstream closed the socket, or it failed.
        case closed
        /// A new connection could not be opened.
        case connectFailed = "connect_failed"
        /// The upstream did not acknowledge `connection_init` in time.
        case ackTimeout = "ack_timeout"
        /// The upstream stopped answering keep-alives.
        case keepAliveTimeout = "keepalive_timeout"
        /// The upstream sent a message gqlgate cannot read, or `connection_error`.
        case badMessage = "bad_message"
    }

    /// When the connection was lost (monotonic nanoseconds, `GatewayClock`).
    package var at: UInt64
    /// Losses in a row since the upstream last acknowledged a connection (1 for the first).
    package var attempt: Int
    package var reason: Reason
    /// The close code the upstream sent, when it closed the socket.
    package var closeCode: Int?

    package init(at: UInt64, attempt: Int, reason: Reason, closeCode: Int? = nil) {
        self.at = at
        self.attempt = attempt
        self.reason = reason
        self.closeCode = closeCode
    }
}
