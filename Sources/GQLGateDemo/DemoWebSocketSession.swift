@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateSubscriptions
import GQLGateWebSocket

/// One client WebSocket of the demo API: the subprotocol's state machine (the
/// same one gqlgate runs for its clients) fed with the socket's messages, its
/// actions carried out, operations run by a `DemoOperationRunner`. Every
/// `connection_init` is accepted.
///
/// `@unchecked Sendable`: the session is handed to the runner's tasks, but
/// every property is read and written on `connection.loop`'s thread only;
/// the tasks reach it through `loop.execute`.
final class DemoWebSocketSession: WebSocketConnectionDelegate, @unchecked Sendable {
    private let connection: WebSocketConnection
    private var machine: any ClientProtocolStateMachine
    private let runner: DemoOperationRunner
    private let onClose: @Sendable (DemoWebSocketSession) -> Void
    private var tickets: [String: DemoOperationRunner.Ticket] = [:]
    private var nextTicket: DemoOperationRunner.Ticket = 0
    private var timer: EventLoopTimerID?
    private var pending: [ClientConnectionEvent] = []
    private var handling = false

    /// - Parameters:
    ///   - onClose: called on the loop once the socket is closed.
    init(connection: WebSocketConnection, subprotocol: WebSocketSubprotocol, settings: ClientProtocolSettings,
         schema: DemoSchema, onClose: @escaping @Sendable (DemoWebSocketSession) -> Void) {
        self.connection = connection
        machine = makeClientProtocolStateMachine(for: subprotocol, settings: settings)
        runner = DemoOperationRunner(schema: schema)
        self.onClose = onClose
    }

    /// The loop the connection runs on.
    var loop: EventLoop { connection.loop }

    /// Starts reading the socket. Loop thread only.
    func start() {
        handle(.opened)  // first: starting the connection may deliver messages read ahead
        connection.delegate = self
        connection.start()
    }

    /// Ends every operation with `complete` and closes with 1001. Loop thread only.
    func shutdown() {
        handle(.shutdown)
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        handle(.message(message.text))
    }

    func webSocket(_ connection: WebSocketConnection, didCloseWith code: UInt16, reason: String) {
        handle(.closed)
        if let timer { connection.loop.cancel(timer) }
        timer = nil
        runner.finish()
        onClose(self)
    }

    /// Applies `event` and carries out the actions, which may queue further events.
    private func handle(_ event: ClientConnectionEvent) {
        pending.append(event)
        guard !handling else { return }
        handling = true
        defer { handling = false }
        while !pending.isEmpty {
            let next = pending.removeFirst()
            for action in machine.handle(next, now: .now) { perform(action) }
        }
    }

    private func perform(_ action: ClientConnectionAction) {
        switch action {
        case .send(let text):
            try? connection.send(.text(text))  // a full send buffer closes the socket; `didCloseWith` follows
        case .close(let close):
            connection.close(code: close.code, reason: close.reason)
        case .authenticate:
            pending.append(.initAccepted(ackPayload: nil))
        case .startOperation(let id, let request):
            let loop = connection.loop, ticket = nextTicket
            nextTicket += 1
            tickets[id] = ticket
            runner.start(ticket, id: id, request: request) { [weak self] event in
                guard let self else { return }
                loop.execute { self.deliver(event, of: id, ticket: ticket) }
            }
        case .stopOperation(let id):
            if let ticket = tickets.removeValue(forKey: id) { runner.stop(ticket) }
        case .wakeUp(let instant):
            if let timer { connection.loop.cancel(timer) }
            timer = connection.loop.schedule(after: max(.zero, instant - .now)) { [weak self] in
                self?.timer = nil
                self?.handle(.timer)
            }
        }
    }

    /// An event of operation `id` started with `ticket`; dropped once that
    /// operation was stopped (its id may run another operation by now).
    private func deliver(_ event: ClientConnectionEvent, of id: String, ticket: DemoOperationRunner.Ticket) {
        guard tickets[id] == ticket else { return }
        switch event {
        case .failed, .completed: tickets[id] = nil
        default: break
        }
        handle(event)
    }
}
