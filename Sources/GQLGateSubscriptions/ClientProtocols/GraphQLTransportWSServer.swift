@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// The server side of graphql-transport-ws for one client connection.
///
/// - `connection_init` is surfaced as `authenticate`; the caller's answer
///   sends `connection_ack` or closes 4403. No init within `initTimeout`:
///   4408. A second init: 4429. `subscribe` before the ack: 4401.
/// - `subscribe` starts an operation; an id still running closes 4409. With
///   `maxPerConnection` operations running, a further one gets an `error`
///   message for its id (`TOO_MANY_SUBSCRIPTIONS`) and the socket stays open.
/// - Results become `next`/`error`/`complete`; after `complete` or `error`
///   the id may be used again. Results for ids not running are dropped (the
///   client's `complete` may cross them on the wire).
/// - Unreadable or unknown messages, and server-only messages from the
///   client, close 4400 with the reason.
/// - `ping` gets `pong` at any time. After `keepalive` without traffic
///   either way the server sends `ping`.
package struct GraphQLTransportWSServer: ClientProtocolStateMachine {
    private enum Phase: Sendable {
        case new
        case awaitingInit(deadline: MonotonicInstant)
        case authenticating
        case acknowledged
        case closed
    }

    private let settings: ClientProtocolSettings
    private var phase = Phase.new
    private var operations: Set<String> = []
    private var lastActivity: MonotonicInstant?
    private var keepaliveCheck: MonotonicInstant?
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
        for action in actions {
            if case .send = action { lastActivity = now }
        }
        if let instant = wakeUps.request(nextDeadline) { actions.append(.wakeUp(at: instant)) }
        return actions
    }

    package mutating func resultMessage(id: String, payload: SerializedJSON, now: MonotonicInstant) -> String? {
        if case .closed = phase { return nil }
        guard operations.contains(id) else { return nil }
        lastActivity = now
        return GraphQLTransportWSMessage.next(id: id, payload: payload)
    }

    private var nextDeadline: MonotonicInstant? {
        switch phase {
        case .awaitingInit(let deadline): deadline
        case .acknowledged: keepaliveCheck
        case .new, .authenticating, .closed: nil
        }
    }

    private mutating func apply(_ event: ClientConnectionEvent, now: MonotonicInstant, into actions: inout [ClientConnectionAction]) {
        switch event {
        case .opened:
            guard case .new = phase else { return }
            phase = .awaitingInit(deadline: now + settings.initTimeout)
        case .message(let text):
            lastActivity = now
            receive(text, into: &actions)
        case .initAccepted(let ackPayload):
            guard case .authenticating = phase else { return }
            phase = .acknowledged
            actions.append(.send(GraphQLTransportWSMessage.connectionAck(payload: ackPayload).encoded()))
            if let interval = settings.keepaliveInterval { keepaliveCheck = now + interval }
        case .initRejected:
            guard case .authenticating = phase else { return }
            close(.forbidden, into: &actions)
        case .result(let id, let payload):
            if let message = resultMessage(id: id, payload: payload, now: now) { actions.append(.send(message)) }
        case .failed(let id, let errors):
            guard operations.remove(id) != nil else { return }
            let payload = errors.isEmpty ? [JSONValue.object([("message", .string("Unknown error"))])] : errors
            actions.append(.send(GraphQLTransportWSMessage.error(id: id, payload: payload).encoded()))
        case .completed(let id):
            guard operations.remove(id) != nil else { return }
            actions.append(.send(GraphQLTransportWSMessage.complete(id: id).encoded()))
        case .timer:
            fireTimers(now: now, into: &actions)
        case .closed:
            stopAll(into: &actions)
            phase = .closed
        case .shutdown:
            for id in operations.sorted() {
                actions.append(.stopOperation(id: id))
                actions.append(.send(GraphQLTransportWSMessage.complete(id: id).encoded()))
            }
            operations.removeAll()
            close(.goingAway, into: &actions)
        }
    }

    private mutating func receive(_ text: String, into actions: inout [ClientConnectionAction]) {
        let message: GraphQLTransportWSMessage
        do {
            message = try GraphQLTransportWSMessage.decode(text)
        } catch {
            close(.badRequest(error.reason), into: &actions)
            return
        }
        switch message {
        case .connectionInit(let payload):
            guard case .awaitingInit = phase else {
                close(.tooManyInitRequests, into: &actions)
                return
            }
            phase = .authenticating
            actions.append(.authenticate(payload: payload))
        case .ping:
            actions.append(.send(GraphQLTransportWSMessage.pong(payload: nil).encoded()))
        case .pong:
            break
        case .subscribe(let id, let request):
            guard case .acknowledged = phase else {
                close(.unauthorized, into: &actions)
                return
            }
            guard !operations.contains(id) else {
                close(.subscriberExists(id), into: &actions)
                return
            }
            guard operations.count < settings.maxPerConnection else {
                actions.append(.send(GraphQLTransportWSMessage.error(id: id, payload: [settings.tooManyOperationsError]).encoded()))
                return
            }
            operations.insert(id)
            actions.append(.startOperation(id: id, request: request))
        case .complete(let id):
            guard operations.remove(id) != nil else { return }
            actions.append(.stopOperation(id: id))
        case .connectionAck, .next, .error:
            close(.badRequest("Unexpected message of type '\(message.type)' from a client"), into: &actions)
        }
    }

    private mutating func fireTimers(now: MonotonicInstant, into actions: inout [ClientConnectionAction]) {
        switch phase {
        case .awaitingInit(let deadline) where deadline <= now:
            close(.initTimeout, into: &actions)
        case .acknowledged:
            guard let check = keepaliveCheck, check <= now, let interval = settings.keepaliveInterval else { return }
            let idleSince = lastActivity ?? now
            if now - idleSince >= interval {
                actions.append(.send(GraphQLTransportWSMessage.ping(payload: nil).encoded()))
                keepaliveCheck = now + interval
            } else {
                keepaliveCheck = idleSince + interval
            }
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
