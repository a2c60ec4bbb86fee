/// Limits and timers of a `WebSocketConnection`.
package struct WebSocketConfiguration: Sendable {
    /// Largest message accepted, all fragments together; bigger ones close with 1009.
    package var maxMessageBytes: Int
    /// Most bytes queued for the peer but not yet written. A send that would
    /// pass it fails and closes the connection with 1008 (policy violation),
    /// so a peer that does not read cannot make memory grow.
    package var maxSendBufferBytes: Int
    /// Send a ping this often when set; the peer must answer within `pongTimeout`.
    package var pingInterval: Duration?
    /// How long a keep-alive ping may go unanswered before the peer counts as
    /// dead: the connection then sends 1011 (best effort) and closes.
    package var pongTimeout: Duration
    /// How long a close handshake may take before the transport is closed anyway.
    package var closeTimeout: Duration

    package init(maxMessageBytes: Int = 1 << 20, maxSendBufferBytes: Int = 4 << 20, pingInterval: Duration? = nil,
                pongTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(5)) {
        self.maxMessageBytes = maxMessageBytes
        self.maxSendBufferBytes = maxSendBufferBytes
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.closeTimeout = closeTimeout
    }
}
