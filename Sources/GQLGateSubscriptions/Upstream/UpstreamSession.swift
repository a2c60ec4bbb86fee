@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// gqlgate as the client of the upstream API over one WebSocket (one per
/// credential set), multiplexing every upstream subscription by id, for
/// either `upstream.ws_protocol`.
///
/// - The first `subscribe` asks to `connect`; once connected it sends
///   `connection_init` and waits `ackTimeout` for `connection_ack`.
///   Subscriptions made meanwhile are sent after the ack.
/// - graphql-transport-ws: a `ping` every `keepalive`, and the connection
///   counts as dead when the `pong` is not back within `pongTimeout`. The
///   upstream's `ping` is answered. Legacy: after the first `ka`, silence for
///   `keepAliveTimeout` counts as dead.
/// - Results, errors and completions are reported by upstream id.
/// - A lost connection (closed, failed, timed out, unreadable message)
///   reports every live subscription with `connectionLost` and reconnects
///   after the backoff's delay, subscribing them again after the new ack.
///   Without a backoff each gets `failed` instead.
/// - With no subscription left for `idleTimeout`, the connection is closed.
///
/// The connect timeout is the socket's own (libcurl's `connect_timeout`):
/// a failed connect arrives as `disconnected`.
package struct UpstreamSession: Sendable {
    private enum Phase: Sendable {
        case idle
        case connecting
        case initialising(ackDeadline: MonotonicInstant)
        case ready(since: MonotonicInstant)
        case waitingToReconnect(at: MonotonicInstant)
        case stopped
    }

    private struct Subscription: Sendable {
        let request: GraphQLRequest
        let order: Int
        var sent: Bool
    }

    private let settings: UpstreamSessionSettings
    private let wire: UpstreamWireFormat
    private var backoff: ReconnectBackoff?
    private var phase = Phase.idle
    private var subscriptions: [String: Subscription] = [:]
    private var nextOrder = 0
    private var nextPing: MonotonicInstant?
    private var pongDeadline: MonotonicInstant?
    private var lastKeepAlive: MonotonicInstant?
    private var keepAliveCheck: MonotonicInstant?
    private var idleDeadline: MonotonicInstant?
    private var wakeUps = WakeUpSchedule()

    package init(settings: UpstreamSessionSettings) {
        self.settings = settings
        wire = UpstreamWireFormat(subprotocol: settings.subprotocol)
        backoff = settings.reconnect
    }

    /// The live upstream subscriptions, in the order they were made.
    package var liveSubscriptions: [String] {
        subscriptions.sorted { $0.value.order < $1.value.order }.map(\.key)
    }

    /// Whether the connection is acknowledged and carrying subscriptions.
    package var isReady: Bool {
        if case .ready = phase { return true }
        return false
    }

    /// Applies `event`, observed at `now`, and returns what to do, in order.
    package mutating func handle(_ event: UpstreamSessionEvent, now: MonotonicInstant) -> [UpstreamSessionAction] {
        var actions: [UpstreamSessionAction] = []
        if case .timer = event { wakeUps.timerFired() }
        apply(event, now: now, into: &actions)
        if let instant = wakeUps.request(nextDeadline) { actions.append(.wakeUp(at: instant)) }
        return actions
    }

    private var nextDeadline: MonotonicInstant? {
        switch phase {
        case .initialising(let ackDeadline): ackDeadline
        case .ready: [nextPing, pongDeadline, keepAliveCheck, idleDeadline].compactMap { $0 }.min()
        case .waitingToReconnect(let at): at
        case .idle, .connecting, .stopped: nil
        }
    }

    private mutating func apply(_ event: UpstreamSessionEvent, now: MonotonicInstant, into actions: inout [UpstreamSessionAction]) {
        switch event {
        case .subscribe(let id, let request):
            subscribe(id, request, into: &actions)
        case .unsubscribe(let id):
            guard let removed = subscriptions.removeValue(forKey: id) else { return }
            if removed.sent, case .ready = phase { actions.append(.send(wire.stop(id: id))) }
            becameIdleIfEmpty(now: now)
        case .connected(let initPayload):
            guard case .connecting = phase else { return }
            actions.append(.send(wire.connectionInit(initPayload)))
            phase = .initialising(ackDeadline: now + settings.ackTimeout)
        case .message(let text):
            switch phase {
            case .initialising, .ready: receive(text, now: now, into: &actions)
            default: return
            }
        case .disconnected:
            switch phase {
            case .connecting, .initialising, .ready: lose(now: now, close: nil, into: &actions)
            default: return
            }
        case .timer:
            fireTimers(now: now, into: &actions)
        case .shutdown:
            switch phase {
            case .initialising, .ready:
                if settings.subprotocol == .graphqlWS { actions.append(.send(GraphQLWSMessage.connectionTerminate.encoded())) }
                actions.append(.close(.normal))
            case .connecting:
                actions.append(.close(.normal))
            default:
                break
            }
            subscriptions.removeAll()
            resetConnectionTimers()
            phase = .stopped
        }
    }

    private mutating func subscribe(_ id: String, _ request: GraphQLRequest, into actions: inout [UpstreamSessionAction]) {
        if case .stopped = phase {
            actions.append(.failed(id: id, errors: [UpstreamSession.shuttingDownError]))
            return
        }
        guard subscriptions[id] == nil else { return }
        var subscription = Subscription(request: request, order: nextOrder, sent: false)
        nextOrder += 1
        idleDeadline = nil
        switch phase {
        case .ready:
            actions.append(.send(wire.subscribe(id: id, request: request)))
            subscription.sent = true
        case .idle:
            actions.append(.connect)
            phase = .connecting
        default:
            break
        }
        subscriptions[id] = subscription
    }

    private mutating func receive(_ text: String, now: MonotonicInstant, into actions: inout [UpstreamSessionAction]) {
        let inbound: UpstreamInbound
        do {
            inbound = try wire.decode(text)
        } catch {
            lose(now: now, close: .badResponse(error.reason), into: &actions)
            return
        }
        switch inbound {
        case .ack:
            guard case .initialising = phase else { return }
            acknowledged(now: now, into: &actions)
        case .ping:
            actions.append(.send(GraphQLTransportWSMessage.pong(payload: nil).encoded()))
        case .pong:
            pongDeadline = nil
        case .keepAlive:
            lastKeepAlive = now
            if keepAliveCheck == nil { keepAliveCheck = now + settings.keepAliveTimeout }
        case .result(let id, let payload):
            guard subscriptions[id] != nil else { return }
            actions.append(.result(id: id, payload: SerializedJSON(payload)))
        case .failed(let id, let errors):
            guard subscriptions.removeValue(forKey: id) != nil else { return }
            actions.append(.failed(id: id, errors: errors))
            becameIdleIfEmpty(now: now)
        case .completed(let id):
            guard subscriptions.removeValue(forKey: id) != nil else { return }
            actions.append(.completed(id: id))
            becameIdleIfEmpty(now: now)
        case .connectionError(let payload):
            lose(now: now, close: .badResponse("connection_error: \(payload.serialized())"), into: &actions)
        case .unexpected(let type):
            lose(now: now, close: .badResponse("Unexpected message of type '\(type)' from the server"), into: &actions)
        }
    }

    private mutating func acknowledged(now: MonotonicInstant, into actions: inout [UpstreamSessionAction]) {
        phase = .ready(since: now)
        if settings.subprotocol == .graphqlTransportWS, settings.keepalive > .zero { nextPing = now + settings.keepalive }
        for id in liveSubscriptions {
            guard let subscription = subscriptions[id], !subscription.sent else { continue }
            actions.append(.send(wire.subscribe(id: id, request: subscription.request)))
            subscriptions[id]?.sent = true
        }
        becameIdleIfEmpty(now: now)
    }

    private mutating func fireTimers(now: MonotonicInstant, into actions: inout [UpstreamSessionAction]) {
        switch phase {
        case .initialising(let ackDeadline) where ackDeadline <= now:
            lose(now: now, close: .ackTimeout, into: &actions)
        case .ready:
            if let deadline = pongDeadline, deadline <= now {
                lose(now: now, close: .keepAliveTimeout, into: &actions)
                return
            }
            if let check = keepAliveCheck, check <= now, let last = lastKeepAlive {
                guard now - last < settings.keepAliveTimeout else {
                    lose(now: now, close: .keepAliveTimeout, into: &actions)
                    return
                }
                keepAliveCheck = last + settings.keepAliveTimeout
            }
            if let deadline = idleDeadline, deadline <= now, subscriptions.isEmpty {
                actions.append(.close(.normal))
                resetConnectionTimers()
                phase = .idle
                return
            }
            if let ping = nextPing, ping <= now {
                actions.append(.send(GraphQLTransportWSMessage.ping(payload: nil).encoded()))
                nextPing = now + settings.keepalive
                if pongDeadline == nil { pongDeadline = now + settings.pongTimeout }
            }
        case .waitingToReconnect(let at) where at <= now:
            actions.append(.connect)
            phase = .connecting
        default:
            return
        }
    }

    private mutating func becameIdleIfEmpty(now: MonotonicInstant) {
        guard subscriptions.isEmpty else { return }
        switch phase {
        case .ready:
            if let idleTimeout = settings.idleTimeout { idleDeadline = now + idleTimeout }
        case .waitingToReconnect:
            phase = .idle
        default:
            return
        }
    }

    /// The connection is gone: report every live subscription and plan the reconnection.
    private mutating func lose(now: MonotonicInstant, close: WebSocketClose?, into actions: inout [UpstreamSessionAction]) {
        if let close { actions.append(.close(close)) }
        var uptime: Duration?
        if case .ready(let since) = phase { uptime = now - since }
        resetConnectionTimers()
        for id in subscriptions.keys { subscriptions[id]?.sent = false }
        let live = liveSubscriptions
        guard !live.isEmpty else {
            phase = .idle
            return
        }
        if var backoff {
            let delay = backoff.nextDelay(afterUptime: uptime)
            self.backoff = backoff
            phase = .waitingToReconnect(at: now + delay)
            actions.append(.connectionLost(resubscribing: live))
        } else {
            for id in live { actions.append(.failed(id: id, errors: [UpstreamSession.connectionLostError])) }
            subscriptions.removeAll()
            phase = .idle
        }
    }

    private mutating func resetConnectionTimers() {
        nextPing = nil
        pongDeadline = nil
        lastKeepAlive = nil
        keepAliveCheck = nil
        idleDeadline = nil
    }

    /// The error each subscription gets when the connection is lost and reconnecting is off.
    package static let connectionLostError = JSONValue.object([
        ("message", .string("The upstream WebSocket connection was lost.")),
        ("extensions", .object([("code", .string("UPSTREAM_UNAVAILABLE"))])),
    ])

    /// The error a subscription made after `shutdown` gets.
    package static let shuttingDownError = JSONValue.object([
        ("message", .string("The gateway is shutting down.")),
        ("extensions", .object([("code", .string("SHUTTING_DOWN"))])),
    ])
}
