@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// The bookkeeping of one upstream WebSocket: a `SubscriptionRegistry` (who
/// listens to which upstream subscription) next to the `UpstreamSession`
/// (the protocol), wired as `docs/subscriptions.md` describes. Listeners come
/// and go; the session's results, errors and completions fan out to them;
/// the last listener leaving unsubscribes upstream at once.
///
/// A value type with the clock passed in, like the machines it combines:
/// the loop that owns the socket feeds it and carries out its actions.
package struct UpstreamMultiplexer<Listener: Hashable & Sendable>: Sendable {
    /// What a listener is told.
    package enum Delivery: Sendable, Equatable {
        /// An execution result (`{"data":...}`), serialised once for every listener.
        case result(SerializedJSON)
        /// The subscription ended with these GraphQL errors.
        case failed([JSONValue])
        /// The subscription is over.
        case completed
    }

    /// What to do, in order.
    package enum Action: Sendable, Equatable {
        /// Open the WebSocket, then deliver `connected` or `disconnected`.
        case connect
        /// Send a text message upstream.
        case send(String)
        /// Send a close frame and drop the socket.
        case close(WebSocketClose)
        /// Deliver `timer` at this instant, replacing any earlier request.
        case wakeUp(at: MonotonicInstant)
        /// Tell each of these listeners, in order, about their subscription
        /// (one action for a whole fan-out).
        case deliver([Listener], Delivery)
        /// An upstream subscription began (`gqlgate_upstream_subscriptions_active` + 1).
        case upstreamSubscriptionStarted
        /// An upstream subscription ended (`gqlgate_upstream_subscriptions_active` − 1).
        case upstreamSubscriptionEnded
        /// The connection was lost; this many upstream subscriptions wait for the next one.
        case connectionLost(resubscribing: Int)
    }

    private var registry: SubscriptionRegistry<Listener>
    private var session: UpstreamSession

    package init(settings: UpstreamSessionSettings, dedupe: Bool) {
        registry = SubscriptionRegistry(dedupe: dedupe)
        session = UpstreamSession(settings: settings)
    }

    /// Listeners registered now.
    package var listenerCount: Int { registry.listenerCount }

    /// Upstream subscriptions live now.
    package var upstreamCount: Int { registry.upstreamCount }

    /// Whether the connection is acknowledged.
    package var isReady: Bool { session.isReady }

    /// Adds `listener` for the subscription `key`, subscribing upstream when it is the first of its key.
    package mutating func add(_ listener: Listener, key: SubscriptionKey, request: GraphQLRequest,
                             now: MonotonicInstant) -> [Action] {
        let addition = registry.add(listener, key: key, request: request)
        guard addition.subscribeUpstream else { return [] }
        return [.upstreamSubscriptionStarted]
            + translate(session.handle(.subscribe(id: addition.upstreamID, request: request), now: now))
    }

    /// Removes `listener` (it stopped listening); the last one of its upstream subscription unsubscribes it.
    package mutating func remove(_ listener: Listener, now: MonotonicInstant) -> [Action] {
        guard let removal = registry.remove(listener), removal.completeUpstream else { return [] }
        return translate(session.handle(.unsubscribe(id: removal.upstreamID), now: now)) + [.upstreamSubscriptionEnded]
    }

    /// Feeds a socket or timer event (`connected`, `message`, `disconnected`, `timer`) to the session.
    /// `shutdown` also completes every listener.
    package mutating func handle(_ event: UpstreamSessionEvent, now: MonotonicInstant) -> [Action] {
        var actions = translate(session.handle(event, now: now))
        if case .shutdown = event {
            for (upstreamID, _) in registry.liveSubscriptions {
                actions.append(.deliver(registry.end(upstreamID), .completed))
                actions.append(.upstreamSubscriptionEnded)
            }
        }
        return actions
    }

    private mutating func translate(_ sessionActions: [UpstreamSessionAction]) -> [Action] {
        var actions: [Action] = []
        for action in sessionActions {
            switch action {
            case .connect: actions.append(.connect)
            case .send(let text): actions.append(.send(text))
            case .close(let close): actions.append(.close(close))
            case .wakeUp(let instant): actions.append(.wakeUp(at: instant))
            case .result(let id, let payload):
                let listeners = registry.listeners(of: id)
                if !listeners.isEmpty { actions.append(.deliver(listeners, .result(payload))) }
            case .failed(let id, let errors):
                actions += end(id, with: .failed(errors))
            case .completed(let id):
                actions += end(id, with: .completed)
            case .connectionLost(let resubscribing):
                actions.append(.connectionLost(resubscribing: resubscribing.count))
            }
        }
        return actions
    }

    private mutating func end(_ upstreamID: String, with delivery: Delivery) -> [Action] {
        let listeners = registry.end(upstreamID)
        guard !listeners.isEmpty else { return [] }
        return [.deliver(listeners, delivery), .upstreamSubscriptionEnded]
    }
}
