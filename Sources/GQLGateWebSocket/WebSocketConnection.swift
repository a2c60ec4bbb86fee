import CWslay
import GQLGateCore
package import GQLGateEventLoop

/// One WebSocket connection, server or client side, framed by wslay over a
/// `ByteStream` and driven by an `EventLoop`'s epoll and timers.
///
/// wslay checks every frame: masking direction, reserved bits and opcodes,
/// close codes (1002), UTF-8 of text messages and close reasons (1007) and
/// the message size limit (1009); it answers pings and echoes close frames.
/// `FrameHeaderCheck` closes with 1002 on the malformed headers wslay would
/// answer without a code. This class adds the send buffer limit on every
/// queued frame, pongs included (1008), keep-alive pings with a pong deadline
/// (1011) and a deadline on the close handshake; it never blocks its loop.
///
/// Set `delegate` before `start()`. Every method must be called on `loop`
/// (the methods assert it in debug builds): loop-bound, it is not `Sendable`;
/// other threads reach it through a `LoopBound`. The properties every frame
/// sent touches are `@exclusivity(unchecked)`: one thread, no overlapping
/// access, so the run-time check only costs.
package final class WebSocketConnection: FileDescriptorHandler {
    /// Which end of the connection this is; the client masks what it sends.
    package enum Role: Sendable {
        case server
        case client
    }

    /// Where the connection is in its life.
    package enum State: Sendable, Equatable {
        /// Created, not started.
        case idle
        /// Messages flow both ways.
        case open
        /// A close frame was queued or received; waiting for the handshake to end.
        case closing
        /// The transport is closed and the delegate was told.
        case closed
    }

    package let role: Role
    /// The subprotocol the handshake settled on.
    package let subprotocol: String?
    /// The loop that drives the connection.
    package let loop: EventLoop
    package let configuration: WebSocketConfiguration
    /// Told about messages and the close; held weakly.
    package weak var delegate: (any WebSocketConnectionDelegate)?
    @exclusivity(unchecked) package private(set) var state = State.idle

    let transport: any ByteStream
    @exclusivity(unchecked) var context: OpaquePointer?
    var pendingInput: [UInt8]
    var pendingOffset = 0
    @exclusivity(unchecked) var processing = false
    var frameCheck = FrameHeaderCheck()
    @exclusivity(unchecked) private var transportFailed = false
    @exclusivity(unchecked) private var registered = false
    private var requestedClose: (code: UInt16, reason: String)?
    /// `close` was asked for while messages were queued: the close frame follows once they are written.
    @exclusivity(unchecked) private var closeFrameDeferred = false
    var receivedCloseReason = ""
    private var closeTimer: EventLoopTimerID?
    var pingTimer: EventLoopTimerID?
    var pongTimer: EventLoopTimerID?

    /// - Parameters:
    ///   - role: `.server` on sockets clients opened, `.client` upstream.
    ///   - transport: the byte stream, already past the HTTP handshake.
    ///   - loop: the loop whose thread will run every call.
    ///   - subprotocol: what the handshake chose.
    ///   - initialBytes: bytes the handshake read past its header; framed before the transport is read.
    package init(role: Role, transport: any ByteStream, loop: EventLoop,
                configuration: WebSocketConfiguration = WebSocketConfiguration(),
                subprotocol: String? = nil, initialBytes: [UInt8] = []) {
        self.role = role
        self.transport = transport
        self.loop = loop
        self.configuration = configuration
        self.subprotocol = subprotocol
        pendingInput = initialBytes
        var callbacks = wslayCallbacks
        let user = Unmanaged.passUnretained(self).toOpaque()  // the context is freed in deinit, before self is gone
        let rc = role == .server
            ? wslay_event_context_server_init(&context, &callbacks, user)
            : wslay_event_context_client_init(&context, &callbacks, user)
        guard rc == 0, let context else {
            context = nil  // wslay could not allocate it: `start()` ends the connection with 1011
            return
        }
        wslay_event_config_set_max_recv_msg_length(context, UInt64(max(0, configuration.maxMessageBytes)))
    }

    deinit {
        if let context { wslay_event_context_free(context) }
    }

    /// Payload bytes queued for the peer and not yet written.
    var bufferedBytes: Int {
        context.map { Int(wslay_event_get_queued_msg_length($0)) } ?? 0
    }

    // MARK: - Public API (loop thread)

    /// Starts reading and writing: frames `initialBytes` first, then watches
    /// the transport. A connection wslay could not allocate a context for
    /// closes its transport here and tells the delegate 1011 "out of memory".
    package func start() {
        assert(loop.inLoop)
        guard state == .idle else { return }
        state = .open
        guard context != nil else {
            requestedClose = (WebSocketCloseCode.internalError, "out of memory")
            finish()
            return
        }
        schedulePing()
        drive(read: true)
    }

    /// Queues a message for the peer.
    /// - Throws: `.notOpen` once closing; `.sendBufferFull` when the queued
    ///   frames would pass `maxSendBufferBytes` (the connection then closes
    ///   with 1008 and reads no more).
    package func send(_ message: WebSocketMessage) throws(WebSocketError) {
        assert(loop.inLoop)
        guard state == .open else { throw WebSocketError(.notOpen, "the WebSocket connection is not open") }
        let (opcode, count): (UInt8, Int) = switch message {
        case .text(let text): (UInt8(WSLAY_TEXT_FRAME.rawValue), text.utf8.count)
        case .binary(let bytes): (UInt8(WSLAY_BINARY_FRAME.rawValue), bytes.count)
        }
        try reserveSendBuffer(for: count)
        let rc: Int32 = switch message {
        case .text(var text): text.withUTF8 { queue(opcode, UnsafeRawBufferPointer($0)) }
        case .binary(let bytes): bytes.withUnsafeBytes { queue(opcode, $0) }
        }
        guard rc == 0 else { throw WebSocketError(.notOpen, "wslay refused the message (\(rc))") }
        if !processing { drive(read: false) }
    }

    /// Starts the close handshake with `code` and `reason` (at most 123 bytes
    /// of UTF-8 are sent) once the messages queued so far are written. If the
    /// peer does not answer within `closeTimeout` the transport is closed
    /// anyway. Does nothing once closing.
    package func close(code: UInt16 = WebSocketCloseCode.normal, reason: String = "") {
        close(code: code, reason: reason, afterQueuedMessages: true)
    }

    /// `afterQueuedMessages: false` sends the close frame ahead of them (wslay
    /// writes control frames before data) and drops them.
    func close(code: UInt16, reason: String, afterQueuedMessages: Bool) {
        assert(loop.inLoop)
        guard state == .open || state == .idle, let context else { return }
        requestedClose = (code, reason)
        if afterQueuedMessages, wslay_event_get_queued_msg_count(context) > 0 {
            closeFrameDeferred = true
        } else {
            queueCloseFrame()
        }
        if state == .idle {
            state = .open
        }
        enterClosing()
        if !processing { drive(read: false) }
    }

    private func queueCloseFrame() {
        guard let context, let requestedClose else { return }
        closeFrameDeferred = false
        let bytes = Self.truncatedUTF8(requestedClose.reason, maxBytes: 123)
        _ = bytes.withUnsafeBufferPointer { wslay_event_queue_close(context, requestedClose.code, $0.baseAddress, $0.count) }
    }

    // MARK: - Readiness

    package func handleEvents(_ events: UInt32) {
        drive(read: events & (EventLoop.readable | EventLoop.error | EventLoop.hangUp) != 0)
    }

    /// Lets wslay read (when asked) and write what is queued, then settles the
    /// epoll interest or finishes the connection.
    func drive(read: Bool) {
        guard let context, state == .open || state == .closing else { return }
        processing = true
        if read, wslay_event_want_read(context) != 0 {
            if wslay_event_recv(context) != 0 {
                transportFailed = true
            } else if frameCheck.failed, wslay_event_want_read(context) != 0 {
                // A header `frameCheck` refused, and wslay did not stop reading
                // before it (at a close frame or an error it named itself).
                wslay_event_shutdown_read(context)
                close(code: WebSocketCloseCode.protocolError, reason: "", afterQueuedMessages: false)
            }
        }
        if !transportFailed, wslay_event_want_write(context) != 0, wslay_event_send(context) != 0 {
            transportFailed = true
        }
        if closeFrameDeferred, !transportFailed, wslay_event_get_queued_msg_count(context) == 0 {
            queueCloseFrame()
            if wslay_event_send(context) != 0 { transportFailed = true }
        }
        processing = false
        settle()
    }

    private func settle() {
        guard let context, state == .open || state == .closing else { return }
        let wantRead = wslay_event_want_read(context) != 0
        let wantWrite = wslay_event_want_write(context) != 0
        if transportFailed || (!wantRead && !wantWrite) {
            finish()
            return
        }
        if state == .open && !wantRead {
            enterClosing()  // wslay failed the connection or the peer sent close
        }
        let events = (wantRead ? EventLoop.readable : 0) | (wantWrite ? EventLoop.writable : 0)
        loop.register(transport.fileDescriptor, events: events, handler: self)
        registered = true
    }

    private func enterClosing() {
        guard state == .open else { return }
        state = .closing
        cancelKeepAlive()
        closeTimer = loop.schedule(after: configuration.closeTimeout) { [weak self] in
            self?.closeTimer = nil
            self?.finish()
        }
    }

    /// Closes the transport and tells the delegate, once.
    func finish() {
        guard state != .closed else { return }
        state = .closed
        cancelKeepAlive()
        if let closeTimer { loop.cancel(closeTimer) }
        closeTimer = nil
        if registered { loop.unregister(transport.fileDescriptor) }
        registered = false
        transport.close()
        let code: UInt16, reason: String
        if let context, wslay_event_get_close_received(context) != 0 {
            (code, reason) = (wslay_event_get_status_code_received(context), receivedCloseReason)
        } else if let context, wslay_event_get_close_sent(context) != 0 {
            (code, reason) = (wslay_event_get_status_code_sent(context), requestedClose?.reason ?? "")
        } else if let requestedClose {
            (code, reason) = requestedClose
        } else {
            (code, reason) = (WebSocketCloseCode.abnormal, "")
        }
        delegate?.webSocket(self, didCloseWith: code, reason: reason)
    }

    private static func truncatedUTF8(_ text: String, maxBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            guard out.count + encoded.count <= maxBytes else { break }
            out += encoded
        }
        return out
    }
}

@available(*, unavailable)
extension WebSocketConnection: Sendable {}
