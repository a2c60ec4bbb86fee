import CWslay
import GQLGateEventLoop

/// Keep-alive: a ping every `pingInterval` while open, and the connection
/// closed with 1011 when the pong does not come within `pongTimeout`.
extension WebSocketConnection {
    func schedulePing() {
        guard let interval = configuration.pingInterval, state == .open else { return }
        pingTimer = loop.schedule(after: interval) { [weak self] in
            self?.pingTimer = nil
            self?.sendPing()
        }
    }

    private func sendPing() {
        guard state == .open else { return }
        guard (try? reserveSendBuffer(for: 0)) != nil,
              queue(UInt8(WSLAY_PING.rawValue), UnsafeRawBufferPointer(start: nil, count: 0)) == 0 else { return }
        pongTimer = loop.schedule(after: configuration.pongTimeout) { [weak self] in
            self?.pongTimer = nil
            self?.peerIsDead()
        }
        if !processing { drive(read: false) }
    }

    func receivedPong() {
        guard let pongTimer else { return }
        loop.cancel(pongTimer)
        self.pongTimer = nil
        schedulePing()
    }

    /// The peer left a ping unanswered: tell it with 1011 if the socket takes
    /// it at once, and close without waiting for a handshake.
    private func peerIsDead() {
        guard state == .open else { return }
        close(code: WebSocketCloseCode.internalError, reason: "keep-alive ping unanswered")
        finish()
    }

    func cancelKeepAlive() {
        if let pingTimer { loop.cancel(pingTimer) }
        if let pongTimer { loop.cancel(pongTimer) }
        pingTimer = nil
        pongTimer = nil
    }
}
