@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// The server side of the legacy subscriptions-transport-ws protocol
/// (subprotocol `graphql-ws`) for one client connection.
///
/// - `connection_init` is surfaced as `authenticate`. Accepted: `connection_ack`,
///   then `ka` at once and every `keepalive`. Refused: `connection_error`,
///   then close 1011. No init within `initTimeout`: close 4408. A second
///   init gets `connection_error` and changes nothing.
/// - Clients send `start` right after `connection_init` without waiting for
///   the ack, so starts that arrive while the init is being authenticated
///   wait for the answer. A `start` before any init gets an `error`.
/// - A `start` with the id of a running operation replaces it (stop, then
///   start), as the protocol's reference server does. With `maxPerConnection`
///   operations running a further one gets an `error` (`TOO_MANY_SUBSCRIPTIONS`).
/// - `stop` ends an operation and answers `complete`; `connection_terminate`
///   ends them all and closes 1000.
/// - Messages that cannot be read keep the socket open: an `error` for the
///   message's id when it has one, else `connection_error`.
/// - Results become `data`; a failure becomes one `error` carrying the first
///   GraphQL error (the protocol's payload is a single object).
package struct GraphQLWSServer: ClientProtocolStateMachine {
    private enum Phase: Sendable {
        case new
        case awaitingInit(deadline: MonotonicInstant)
        case authenticating(waitingStarts: [(id: String, request: GraphQLRequest)])
        case acknowledged(nextKeepAlive: MonotonicInstant?)
        case closed
    }

    private let settings: ClientProtocolSettings
    private var phase = Phase.new
    private var operations: Set<String> = []
    private var wakeUps = WakeUpSchedule()

    package init(settings: ClientProtocolSettings) {
        self.settings = settings
    }

    /// The ids of the operations running now.
    var runningOperations: Set<String> { operations }

    package mutating func handle(_ event: ClientConnectionEvent, now: MonotonicInstant) -> [ClientConnectionAction] {
        if case .closed = phase { return [] }
        var actions: [ClientConnectionAction] = []
        if case .timer = event { wakeUps.timerFired() }
        apply(event, now: now, into: &actions)
        if let instant = wakeUps.request(nextDeadline) { actions.append(.wakeUp(at: instant)) }
        return actions
    }

    package mutating func resultMessage(id: String, payload: SerializedJSON, now: MonotonicInstant) -> String? {
        if case .closed = phase { return nil }
        guard operations.contains(id) else { return nil }
        return GraphQLWSMessage.data(id: id, payload: payload)
    }

    private var nextDeadline: MonotonicInstant? {
        switch phase {
        case .awaitingInit(let deadline): deadline
        case .acknowledged(let nextKeepAlive): nextKeepAlive
        case .new, .authenticating, .closed: nil
        }
    }

    private mutating func apply(_ event: ClientConnectionEvent, now: MonotonicInstant, into actions: inout [ClientConnectionAction]) {
        switch event {
        case .opened:
            guard case .new = phase else { return }
            phase = .awaitingInit(deadline: now + settings.initTimeout)
        case .message(let text):
            receive(text, into: &actions)
        case .initAccepted(let ackPayload):
            guard case .authenticating(let waitingStarts) = phase else { return }
            actions.append(.send(GraphQLWSMessage.connectionAck(payload: ackPayload).encoded()))
            var nextKeepAlive: MonotonicInstant?
            if let interval = settings.keepaliveInterval {
                actions.append(.send(GraphQLWSMessage.keepAlive.encoded()))
                nextKeepAlive = now + interval
            }
            phase = .acknowledged(nextKeepAlive: nextKeepAlive)
            for waiting in waitingStarts { start(waiting.id, waiting.request, into: &actions) }
        case .initRejected(let message):
            guard case .authenticating = phase else { return }
            actions.append(.send(GraphQLWSMessage.connectionError(payload: GraphQLWSMessage.errorObject(message)).encoded()))
            close(.internalError, into: &actions)
        case .result(let id, let payload):
            if let message = resultMessage(id: id, payload: payload, now: now) { actions.append(.send(message)) }
        case .failed(let id, let errors):
            guard operations.remove(id) != nil else { return }
            let error = errors.first ?? GraphQLWSMessage.errorObject("Unknown error")
            actions.append(.send(GraphQLWSMessage.error(id: id, payload: error).encoded()))
        case .completed(let id):
            guard operations.remove(id) != nil else { return }
            actions.append(.send(GraphQLWSMessage.complete(id: id).encoded()))
        case .timer:
            fireTimers(now: now, into: &actions)
        case .closed:
            stopAll(into: &actions)
            phase = .closed
        case .shutdown:
            for id in operations.sorted() {
                actions.append(.stopOperation(id: id))
                actions.append(.send(GraphQLWSMessage.complete(id: id).encoded()))
            }
            operations.removeAll()
            close(.goingAway, into: &actions)
        }
    }

    private mutating func receive(_ text: String, into actions: inout [ClientConnectionAction]) {
        let message: GraphQLWSMessage
        do {
            message = try GraphQLWSMessage.decode(text)
        } catch {
            let payload = GraphQLWSMessage.errorObject(error.reason)
            if let id = error.id {
                actions.append(.send(GraphQLWSMessage.error(id: id, payload: payload).encoded()))
            } else {
                actions.append(.send(GraphQLWSMessage.connectionError(payload: payload).encoded()))
            }
            return
        }
        switch message {
        case .connectionInit(let payload):
            guard case .awaitingInit = phase else {
                let error = GraphQLWSMessage.errorObject(WebSocketClose.tooManyInitRequests.reason)
                actions.append(.send(GraphQLWSMessage.connectionError(payload: error).encoded()))
                return
            }
            phase = .authenticating(waitingStarts: [])
            actions.append(.authenticate(payload: payload))
        case .start(let id, let request):
            switch phase {
            case .authenticating(var waitingStarts):
                waitingStarts.removeAll { $0.id == id }
                guard waitingStarts.count < settings.maxPerConnection else {
                    actions.append(.send(GraphQLWSMessage.error(id: id, payload: settings.tooManyOperationsError).encoded()))
                    return
                }
                waitingStarts.append((id, request))
                phase = .authenticating(waitingStarts: waitingStarts)
            case .acknowledged:
                start(id, request, into: &actions)
            default:
                let error = GraphQLWSMessage.errorObject("Send connection_init before start")
                actions.append(.send(GraphQLWSMessage.error(id: id, payload: error).encoded()))
            }
        case .stop(let id):
            if case .authenticating(var waitingStarts) = phase, waitingStarts.contains(where: { $0.id == id }) {
                waitingStarts.removeAll { $0.id == id }
                phase = .authenticating(waitingStarts: waitingStarts)
                actions.append(.send(GraphQLWSMessage.complete(id: id).encoded()))
                return
            }
            guard operations.remove(id) != nil else { return }
            actions.append(.stopOperation(id: id))
            actions.append(.send(GraphQLWSMessage.complete(id: id).encoded()))
        case .connectionTerminate:
            close(.normal, into: &actions)
        case .connectionAck, .connectionError, .keepAlive, .data, .error, .complete:
            let error = GraphQLWSMessage.errorObject("Invalid message type!")
            actions.append(.send(GraphQLWSMessage.connectionError(payload: error).encoded()))
        }
    }

    private mutating func start(_ id: String, _ request: GraphQLRequest, into actions: inout [ClientConnectionAction]) {
        if operations.contains(id) {
            actions.append(.stopOperation(id: id))
        } else if operations.count >= settings.maxPerConnection {
            actions.append(.send(GraphQLWSMessage.error(id: id, payload: settings.tooManyOperationsError).encoded()))
            return
        }
        operations.insert(id)
        actions.append(.startOperation(id: id, request: request))
    }

    private mutating func fireTimers(now: MonotonicInstant, into actions: inout [ClientConnectionAction]) {
        switch phase {
        case .awaitingInit(let deadline) where deadline <= now:
            close(.initTimeout, into: &actions)
        case .acknowledged(let nextKeepAlive?) where nextKeepAlive <= now:
            guard let interval = settings.keepaliveInterval else { return }
            actions.append(.send(GraphQLWSMessage.keepAlive.encoded()))
            phase = .acknowledged(nextKeepAlive: now + interval)
        default:
            return
        }
    }

    private mutating func stopAll(into actions: inout [ClientConnectionAction]) {
        for id in operations.sorted() { actions.append(.stopOperation(id: id)) }
        operations.removeAll()
    }

    private mutating func close(_ close: WebSocketClose, into actions: inout [ClientConnectionAction]) {
        stopAll(into: &actions)
        actions.append(.close(close))
        phase = .closed
    }
}
