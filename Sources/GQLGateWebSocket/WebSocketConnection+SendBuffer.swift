import CWslay

/// The bound on what waits for the peer: every frame queued, data or control,
/// the pongs wslay queues by itself included, counts against
/// `maxSendBufferBytes`; past it the connection closes with 1008.
extension WebSocketConnection {
    /// What wslay holds for a queued frame beside its payload: its record
    /// and queue cell (56 bytes) as the allocator hands them out. Counting it
    /// makes a flood of empty frames cost too.
    static let queuedFrameOverhead = 64

    /// What the frames queued for the peer count against `maxSendBufferBytes`.
    var sendBufferUse: Int {
        guard let context else { return 0 }
        return Int(wslay_event_get_queued_msg_length(context))
            + Int(wslay_event_get_queued_msg_count(context)) * Self.queuedFrameOverhead
    }

    /// Checks that one more frame with `payloadBytes` fits the send buffer.
    /// - Throws: `.sendBufferFull` when it does not; the connection then
    ///   closes with 1008.
    func reserveSendBuffer(for payloadBytes: Int) throws(WebSocketError) {
        guard sendBufferUse + payloadBytes + Self.queuedFrameOverhead <= configuration.maxSendBufferBytes else {
            sendBufferOverflowed()
            throw WebSocketError(.sendBufferFull, "the peer does not read fast enough: over \(configuration.maxSendBufferBytes) bytes queued")
        }
    }

    /// Called after each ping read, whose pong wslay has just queued.
    func checkSendBufferAfterPing() {
        if sendBufferUse > configuration.maxSendBufferBytes { sendBufferOverflowed() }
    }

    /// The peer does not read what it is sent: read nothing more from it and
    /// close with 1008 ahead of what is queued (wslay then drops it).
    private func sendBufferOverflowed() {
        if let context { wslay_event_shutdown_read(context) }
        close(code: WebSocketCloseCode.policyViolation, reason: "send buffer overflow", afterQueuedMessages: false)
    }
}
