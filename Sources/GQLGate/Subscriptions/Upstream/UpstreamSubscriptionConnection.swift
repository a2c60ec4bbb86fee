@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateSubscriptions
import GQLGateTransports
import GQLGateWebSocket
import Logging

/// One upstream WebSocket for one credential set, carrying every
/// subscription made with those credentials: the I/O shell around an
/// `UpstreamMultiplexer`. Listeners are the result streams handed to
/// clients, by a gateway-wide id.
///
/// Loop-bound: every property is read and written on `loop`'s thread only;
/// callers on other threads hop there through a `LoopBound` (`add`,
/// `remove`, `shutdown`), and the connect task runs on `loop` (it prefers it
/// as its executor). `listeners`, looked up once a delivery, is
/// `@exclusivity(unchecked)`: one thread, no overlapping access.
final class UpstreamSubscriptionConnection: WebSocketConnectionDelegate {
    typealias Listener = ResultChannel
    typealias CredentialRefresh = UpstreamSubscriptions.CredentialRefresh
    /// Told when the connection closed for want of listeners, so its owner can forget it.
    typealias Retire = @Sendable (UpstreamSubscriptionConnection) -> Void

    let loop: EventLoop
    private let settings: UpstreamSubscriptionSettings
    private let client: HTTPClient
    private let recorder: any FactRecorder
    private let logger: Logger
    private let refreshCredentials: CredentialRefresh?
    private let connectGate: UpstreamConnectGate
    private let retire: Retire
    private var credentials: HTTPHeaders
    private var multiplexer: UpstreamMultiplexer<UInt64>
    @exclusivity(unchecked) private var listeners: [UInt64: Listener] = [:]
    /// The listeners' request traces, for those tracing sampled: a reconnect is an event of their spans.
    private var traces: [UInt64: OperationRecord] = [:]
    /// Why the connection was last lost, and the close code the upstream sent.
    private var lossCause: (reason: UpstreamReconnect.Reason, closeCode: Int?) = (.closed, nil)
    /// Losses since the upstream last acknowledged a connection.
    private var lossesInARow = 0
    private var socket: WebSocketConnection?
    /// Bumped whenever a connect attempt or socket is abandoned, so a late one is dropped.
    private var attempt: UInt64 = 0
    private var timer: EventLoopTimerID?
    /// A connect put off while the circuit breaker is open.
    private var delayedConnect: EventLoopTimerID?
    private var credentialsRefused = false
    private var stopped = false

    init(loop: EventLoop, credentials: HTTPHeaders, settings: UpstreamSubscriptionSettings, client: HTTPClient,
         recorder: any FactRecorder, logger: Logger, refreshCredentials: CredentialRefresh?,
         connectGate: UpstreamConnectGate = UpstreamConnectGate(), retire: @escaping Retire) {
        self.loop = loop
        self.credentials = credentials
        self.settings = settings
        self.client = client
        self.recorder = recorder
        self.logger = logger
        self.refreshCredentials = refreshCredentials
        self.connectGate = connectGate
        self.retire = retire
        multiplexer = UpstreamMultiplexer(settings: settings.session, dedupe: settings.dedupe)
    }

    // MARK: - Listeners (loop thread)

    /// Starts delivering the subscription `key` to `listener`; `trace`, when tracing sampled the subscription, is told of reconnects.
    func add(_ id: UInt64, key: SubscriptionKey, request: GraphQLRequest, listener: Listener, trace: OperationRecord?) {
        assert(loop.inLoop)
        guard !stopped else {
            listener.finish(throwing: GraphQLErrorsFailure(errors: [UpstreamSession.shuttingDownError]))
            return
        }
        listeners[id] = listener
        if let trace { traces[id] = trace }
        recorder.record(.subscriptionStarted)
        perform(multiplexer.add(id, key: key, request: request, now: .now))
    }

    /// The listener stopped listening (its stream terminated); unsubscribes upstream if it was the last.
    func remove(_ id: UInt64) {
        assert(loop.inLoop)
        guard listeners.removeValue(forKey: id) != nil else { return }
        traces[id] = nil
        recorder.record(.subscriptionEnded)
        perform(multiplexer.remove(id, now: .now))
    }

    /// Completes every listener and closes the connection for good.
    func shutdown() {
        assert(loop.inLoop)
        guard !stopped else { return }
        perform(multiplexer.handle(.shutdown, now: .now))
        stopped = true
        if let timer { loop.cancel(timer) }
        timer = nil
        if let delayedConnect { loop.cancel(delayedConnect) }
        delayedConnect = nil
    }

    // MARK: - Actions

    private func perform(_ actions: [UpstreamMultiplexer<UInt64>.Action]) {
        for action in actions {
            switch action {
            case .connect:
                connect()
            case .send(let text):
                do {
                    try socket?.send(.text(text))
                } catch {
                    logger.warning("upstream websocket send failed", metadata: ["error": "\(error)"])
                }
            case .close(let close):
                lossCause = (UpstreamReconnect.Reason(closing: close), nil)
                attempt &+= 1
                if let socket {
                    self.socket = nil
                    socket.delegate = nil
                    socket.close(code: close.code, reason: close.reason)
                }
                if listeners.isEmpty { retire(self) }
            case .wakeUp(let instant):
                if let timer { loop.cancel(timer) }
                timer = loop.schedule(after: max(.zero, instant - .now)) { [weak self] in
                    guard let self else { return }
                    timer = nil
                    perform(multiplexer.handle(.timer, now: .now))
                }
            case .deliver(let ids, .result(let payload)):
                let response = Self.fannedOutResponse(for: payload)
                for id in ids { deliver(response, to: id) }
            case .deliver(let ids, .failed(let errors)):
                for id in ids { end(id) { $0.finish(throwing: GraphQLErrorsFailure(errors: errors)) } }
            case .deliver(let ids, .completed):
                for id in ids { end(id) { $0.finish() } }
            case .upstreamSubscriptionStarted:
                recorder.record(.upstreamSubscriptionStarted)
            case .upstreamSubscriptionEnded:
                recorder.record(.upstreamSubscriptionEnded)
            case .connectionLost(let resubscribing):
                logger.warning("upstream websocket lost; reconnecting", metadata: ["subscriptions": "\(resubscribing)"])
                lossesInARow += 1
                noteReconnect()
            }
        }
    }

    /// One upstream event as the response every listener gets: built, and
    /// its payload checked, once however many listeners share it.
    private static func fannedOutResponse(for payload: SerializedJSON) -> GraphQLResponse {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        return GraphQLResponse.isExecutionResult(payload.text)
            ? .executionResult(headers: headers, body: payload.bytes, source: .upstream)
            : GraphQLResponse(status: 200, headers: headers, body: payload.bytes, source: .upstream)
    }

    private func deliver(_ response: GraphQLResponse, to id: UInt64) {
        guard let listener = listeners[id] else { return }
        if !listener.yield(response) {
            listener.finish(throwing: GraphQLErrorsFailure(errors: [Self.tooSlowError]))
            remove(id)
        }
    }

    /// The upstream ended listener `id`'s subscription: `finish` ends its stream.
    private func end(_ id: UInt64, _ finish: (Listener) -> Void) {
        guard let listener = listeners.removeValue(forKey: id) else { return }
        traces[id] = nil
        recorder.record(.subscriptionEnded)
        finish(listener)
    }

    /// Tells the sampled listeners' traces that the connection is being made again.
    private func noteReconnect() {
        guard !traces.isEmpty else { return }
        let reconnect = UpstreamReconnect(
            at: GatewayClock.system.monotonicNanoseconds(), attempt: lossesInARow, reason: lossCause.reason, closeCode: lossCause.closeCode)
        for trace in traces.values { trace.record(.upstreamReconnecting(reconnect)) }
    }

    // MARK: - The socket

    private func connect() {
        attempt &+= 1
        let current = attempt
        if let wait = connectGate.delayBeforeConnecting(), wait > .zero {
            // The circuit breaker is open: connect once it lets requests through again.
            logger.info("upstream websocket connect waits for the circuit breaker", metadata: ["wait": "\(wait)"])
            if let delayedConnect { loop.cancel(delayedConnect) }
            delayedConnect = loop.schedule(after: wait) { [weak self] in
                guard let self else { return }
                delayedConnect = nil
                if current == attempt, !stopped { connect() }
            }
            return
        }
        let me = LoopBound(self, loop: loop)
        let (client, url, subprotocol, connectTimeout) = (client, settings.url, settings.session.subprotocol, settings.connectTimeout)
        let configuration = Self.socketConfiguration
        let refreshCredentials = credentialsRefused ? refreshCredentials : nil
        credentialsRefused = false
        let refused = credentials
        Task(executorPreference: loop) {
            let credentials = if let refreshCredentials { await refreshCredentials(refused) } else { refused }
            let opened: WebSocketConnection
            do {
                opened = try await client.openWebSocket(
                    url: url, subprotocols: [subprotocol.rawValue], headers: credentials,
                    configuration: configuration, connectTimeout: connectTimeout)
            } catch {
                let reason = "\(error)"
                me.loop.execute {
                    let connection = me.value
                    connection.credentials = credentials
                    guard current == connection.attempt, !connection.stopped else { return }
                    connection.logger.warning("upstream websocket connect failed", metadata: ["url": "\(url)", "error": "\(reason)"])
                    connection.lossCause = (.connectFailed, nil)
                    connection.perform(connection.multiplexer.handle(.disconnected, now: .now))
                }
                return
            }
            assert(opened.loop === me.loop, "the upstream WebSocket opened on another loop")
            let bound = LoopBound(opened, loop: me.loop)
            me.loop.execute {
                let connection = me.value, opened = bound.value
                connection.credentials = credentials
                guard current == connection.attempt, !connection.stopped else {
                    opened.close()
                    return
                }
                connection.socket = opened
                opened.delegate = connection
                opened.start()
                let payload = UpstreamInitPayload.make(credentialHeaders: credentials, configured: connection.settings.initPayload)
                connection.perform(connection.multiplexer.handle(.connected(initPayload: payload), now: .now))
            }
        }
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        guard connection === socket, case .text(let text) = message else { return }
        perform(multiplexer.handle(.message(text), now: .now))
        if lossesInARow > 0, multiplexer.isReady { lossesInARow = 0 }
    }

    func webSocket(_ connection: WebSocketConnection, didCloseWith code: UInt16, reason: String) {
        let closed = LoopBound(connection, loop: loop), me = LoopBound(self, loop: loop)
        loop.execute {
            let connection = me.value
            guard closed.value === connection.socket else { return }
            connection.socket = nil
            if code == WebSocketClose.unauthorized.code || code == WebSocketClose.forbidden.code { connection.credentialsRefused = true }
            connection.logger.warning("upstream websocket closed", metadata: ["code": "\(code)", "reason": "\(reason)"])
            connection.lossCause = (.closed, Int(code))
            connection.perform(connection.multiplexer.handle(.disconnected, now: .now))
        }
    }

    /// Upstream events may be large; keep-alive is the protocol's (`ping`/`ka`), not WebSocket pings.
    static let socketConfiguration = WebSocketConfiguration(maxMessageBytes: 16 << 20, maxSendBufferBytes: 16 << 20)

    /// The error a listener gets when it did not take its results fast enough.
    static let tooSlowError = JSONValue.object([
        ("message", .string("The client did not keep up with the subscription's results.")),
        ("extensions", .object([("code", .string("SUBSCRIPTION_TOO_SLOW"))])),
    ])
}

@available(*, unavailable)
extension UpstreamSubscriptionConnection: Sendable {}

extension UpstreamReconnect.Reason {
    /// Why the connection is lost when gqlgate closes it with `close`.
    init(closing close: WebSocketClose) {
        self = switch close {
        case .ackTimeout: .ackTimeout
        case .keepAliveTimeout: .keepAliveTimeout
        default: close.code == WebSocketClose.badResponse("").code ? .badMessage : .closed
        }
    }
}
