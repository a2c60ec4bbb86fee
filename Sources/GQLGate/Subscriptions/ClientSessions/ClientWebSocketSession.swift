@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
import GQLGateMetrics
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateSubscriptions
import GQLGateWebSocket
import Synchronization

/// One client WebSocket: the I/O shell around the protocol state machine
/// the client's subprotocol chose. Messages become machine events; the
/// machine's operations run through the current pipeline's chain as tasks
/// on this loop, their results fed back as events. With tracing on, each
/// sampled operation has a span from its start to its end (`GatewayRecorder.webSocketOperationBegins`).
///
/// Loop-bound: every property is read and written on `loop`'s thread only;
/// operation tasks prefer `loop` and still hop with `onLoop` before touching
/// it, and other threads reach it through a `LoopBound`. Those every delivery
/// touches are `@exclusivity(unchecked)`: one thread, no overlapping access.
final class ClientWebSocketSession: WebSocketConnectionDelegate {
    /// Everything a session needs from the gateway.
    struct Context: Sendable {
        let generations: CurrentGeneration
        let requestIDs: RequestIDGenerator
        let sessions: ClientWebSocketSessions
    }

    private struct RunningOperation {
        let run: UInt64
        /// Cancels its task or its results' channel.
        var stop: @Sendable () -> Void
        /// What the recorder follows of it: its facts, and its span when tracing sampled it.
        let record: WebSocketOperationRecord
    }

    let loop: EventLoop
    private let connection: WebSocketConnection
    private let context: Context
    private let upgradeHeaders: HTTPHeaders
    private let clientAuth: ClientAuthenticator?
    /// Who the client is, for limits per client (`Operation.clientID`): the upgrade's key or address, or the key of `connection_init`.
    private var clientID: String?
    @exclusivity(unchecked) private var machine: any ClientProtocolStateMachine
    @exclusivity(unchecked) private var events: [ClientConnectionEvent] = []
    @exclusivity(unchecked) private var handling = false
    @exclusivity(unchecked) private var operations: [String: RunningOperation] = [:]
    private var nextRun: UInt64 = 0
    private var timer: EventLoopTimerID?
    private var finished = false
    /// The trace context and facts of the connection, for its operations' spans.
    private var traceOrigin: WebSocketTraceOrigin
    /// Set once the connection closes or shuts down: operations stopped from then on end with it.
    private var closing = false

    /// - Parameters:
    ///   - clientID: who the client is, when the pipeline limits per client.
    ///   - clientAuth: checks the key of `connection_init` when the upgrade request carried no valid one.
    init(connection: WebSocketConnection, subprotocol: WebSocketSubprotocol, settings: ClientProtocolSettings,
         upgradeHeaders: HTTPHeaders, clientID: String?, clientAuth: ClientAuthenticator?, traceOrigin: WebSocketTraceOrigin,
         context: Context) {
        loop = connection.loop
        self.connection = connection
        self.upgradeHeaders = upgradeHeaders
        self.clientAuth = clientAuth
        self.clientID = clientID
        self.context = context
        self.traceOrigin = traceOrigin
        machine = makeClientProtocolStateMachine(for: subprotocol, settings: settings)
    }

    /// Starts the protocol (loop thread).
    func start() {
        assert(loop.inLoop)
        context.generations.current.recorder.record(.webSocketOpened)
        connection.delegate = self
        handle(.opened)
        connection.start()  // frames what the client sent with its upgrade request at once
    }

    /// Completes every operation and closes with 1001 (loop thread).
    func shutdown() {
        closing = true
        handle(.shutdown)
    }

    // MARK: - Events

    /// Events that come while one is handled wait their turn in `events`;
    /// the first goes straight to the machine (a delivery is one per client).
    private func handle(_ event: ClientConnectionEvent) {
        assert(loop.inLoop)
        guard !handling else {
            events.append(event)
            return
        }
        handling = true
        for action in machine.handle(event, now: .now) { perform(action) }
        while !events.isEmpty {
            let next = events.removeFirst()
            for action in machine.handle(next, now: .now) { perform(action) }
        }
        handling = false
    }

    private func perform(_ action: ClientConnectionAction) {
        switch action {
        case .send(let text):
            try? connection.send(.text(text))  // a full send buffer closes the connection with 1008
        case .close(let close):
            connection.close(code: close.code, reason: close.reason)
        case .authenticate(let payload):
            traceOrigin.initialised(payload: payload)
            let credentials = InitPayloadCredentials.headers(in: payload)
            if clientAuth?.authenticate(credentials) == false {
                handle(.initRejected(message: ClientAuthenticator.webSocketRejection))
            } else {
                if clientAuth != nil, clientID != nil { clientID = ClientAuthenticator.presentedKey(in: credentials) ?? clientID }
                if clientAuth != nil, context.generations.current.tracer != nil, let key = ClientAuthenticator.presentedKey(in: credentials) {
                    traceOrigin.authenticated(key: key)
                }
                handle(.initAccepted(ackPayload: nil))
            }
        case .startOperation(let id, let request):
            start(id, request)
        case .stopOperation(let id):
            guard let stopped = operations.removeValue(forKey: id) else { return }
            stopped.stop()
            stopped.record.ended(closing ? .connectionClosed : .stopped)
        case .wakeUp(let instant):
            if let timer { loop.cancel(timer) }
            timer = loop.schedule(after: max(.zero, instant - .now)) { [weak self] in
                self?.timer = nil
                self?.handle(.timer)
            }
        }
    }

    // MARK: - Operations

    private func start(_ id: String, _ request: GraphQLRequest) {
        nextRun &+= 1
        let run = nextRun
        let pipeline = context.generations.current
        let requestID = context.requestIDs.next()
        let record = pipeline.recorder.webSocketOperationBegins(request, requestID: requestID, origin: traceOrigin)
        let operation = Operation(
            request: request, clientTransport: .webSocket, delivery: .webSocket, headers: upgradeHeaders, requestID: requestID, originalBody: nil,
            clientID: clientID, facts: record.facts)
        let chain = pipeline.chain
        let me = LoopBound(self, loop: loop)
        let task = Task(executorPreference: loop) {
            do {
                let results = try await chain.run(operation)
                if let channel = results.channel {
                    // The task ends here, with its frames; the results are pushed from now on.
                    onSessionLoop(me) { $0.consume(channel, id: id, run: run) }
                    return
                }
                for try await response in results {
                    onSessionLoop(me) { $0.deliver(WebSocketResult.event(for: response, id: id), run: run) }
                }
                onSessionLoop(me) { $0.deliver(.completed(id: id), run: run) }
            } catch is CancellationError {
                return
            } catch {
                onSessionLoop(me) { $0.deliver(WebSocketResult.event(for: error, id: id), run: run) }
            }
        }
        operations[id] = RunningOperation(run: run, stop: task.cancel, record: record)
    }

    /// Takes the results of run `run` of operation `id` from `channel`,
    /// pushed straight into the machine (no task, no iterator), unless the
    /// operation was stopped meanwhile (then the channel is cancelled, which
    /// removes its listener). Produced on this loop, a result goes into the
    /// send buffer at once (whose limit closes a client that does not read);
    /// produced on another loop, at most `channel.bufferLimit` results wait
    /// for this one, past which the subscription ends as too slow.
    private func consume(_ channel: ResultChannel, id: String, run: UInt64) {
        guard operations[id]?.run == run else {
            channel.cancel()
            return
        }
        operations[id]?.stop = channel.cancel
        let waiting = WaitingResults()
        let me = LoopBound(self, loop: loop)
        channel.consume { event in
            let isResult = if case .result = event { true } else { false }
            if me.loop.inLoop {
                me.value.take(event, id: id, run: run)
                return true
            }
            if isResult, waiting.count.wrappingAdd(1, ordering: .relaxed).newValue > channel.bufferLimit {
                waiting.count.wrappingSubtract(1, ordering: .relaxed)
                return false
            }
            me.loop.execute {
                me.value.take(event, id: id, run: run)
                if isResult { waiting.count.wrappingSubtract(1, ordering: .relaxed) }
            }
            return true
        }
    }

    private func take(_ event: ResultChannel.Event, id: String, run: UInt64) {
        switch event {
        case .result(let response): deliver(WebSocketResult.event(for: response, id: id), run: run)
        case .finished(nil): deliver(.completed(id: id), run: run)
        case .finished(let error?): deliver(WebSocketResult.event(for: error, id: id), run: run)
        }
    }

    private func deliver(_ event: ClientConnectionEvent, run: UInt64) {
        let id: String
        switch event {
        case .result(let resultID, _): id = resultID
        case .failed(let failedID, _), .completed(let failedID): id = failedID
        default: return
        }
        guard let running = operations[id], running.run == run else { return }
        if case .result(_, let payload) = event { return send(payload, of: id) }
        operations[id] = nil
        handle(event)
        if case .failed(_, let errors) = event { running.record.ended(.error, errors: errors) } else { running.record.ended(.completed) }
    }

    /// A result straight from the machine to the connection, unless an
    /// event is being handled (it then waits its turn).
    private func send(_ payload: SerializedJSON, of id: String) {
        guard !handling else { return handle(.result(id: id, payload: payload)) }
        guard let message = machine.resultMessage(id: id, payload: payload, now: .now) else { return }
        try? connection.send(.text(message))  // a full send buffer closes the connection with 1008
    }

    // MARK: - WebSocketConnectionDelegate

    func webSocket(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        handle(.message(message.text))
    }

    func webSocket(_ connection: WebSocketConnection, didCloseWith code: UInt16, reason: String) {
        closing = true
        handle(.closed)
        guard !finished else { return }
        finished = true
        for operation in operations.values {
            operation.stop()
            operation.record.ended(.connectionClosed)
        }
        operations.removeAll()
        if let timer { loop.cancel(timer) }
        timer = nil
        context.generations.current.recorder.record(.webSocketClosed)
        context.sessions.remove(self)
    }
}

@available(*, unavailable)
extension ClientWebSocketSession: Sendable {}

/// Runs `work` with the session on its loop: now when the caller is there, else as loop work.
private func onSessionLoop(_ session: LoopBound<ClientWebSocketSession>, _ work: @escaping @Sendable (ClientWebSocketSession) -> Void) {
    if session.loop.inLoop {
        work(session.value)
    } else {
        session.loop.execute { work(session.value) }
    }
}

/// Results handed over from another loop that this connection's loop has not
/// taken yet.
private final class WaitingResults: Sendable {
    let count = Atomic<Int>(0)
}
