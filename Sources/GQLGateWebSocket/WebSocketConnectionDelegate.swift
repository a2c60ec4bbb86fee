/// Receives what a `WebSocketConnection` reads, on the connection's loop thread.
package protocol WebSocketConnectionDelegate: AnyObject {
    /// A whole text or binary message arrived.
    func webSocket(_ connection: WebSocketConnection, didReceive message: WebSocketMessage)
    /// The connection is closed and its transport released; called once.
    /// `code` is the peer's close code when it sent one (1005 for a close
    /// frame without one), else the code this side sent, else 1006 (abnormal).
    func webSocket(_ connection: WebSocketConnection, didCloseWith code: UInt16, reason: String)
}
