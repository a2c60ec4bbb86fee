package import GQLGatePipeline

/// Who listens to which upstream subscription, for one upstream connection.
///
/// With `dedupe`, listeners whose `SubscriptionKey`s are equal share one
/// upstream subscription; without it every listener gets its own. Upstream
/// ids are "1", "2", ... and never reused, so a late message for an ended
/// subscription cannot reach a new one.
package struct SubscriptionRegistry<Listener: Hashable & Sendable>: Sendable {
    /// The outcome of `add`.
    package struct Addition: Sendable, Equatable {
        /// The upstream subscription the listener now hears.
        package let upstreamID: String
        /// Whether the upstream subscription is new and must be subscribed.
        package let subscribeUpstream: Bool

        package init(upstreamID: String, subscribeUpstream: Bool) {
            self.upstreamID = upstreamID
            self.subscribeUpstream = subscribeUpstream
        }
    }

    /// The outcome of `remove`.
    package struct Removal: Sendable, Equatable {
        /// The upstream subscription the listener heard.
        package let upstreamID: String
        /// Whether it was the last listener, so `complete` must go upstream now.
        package let completeUpstream: Bool

        package init(upstreamID: String, completeUpstream: Bool) {
            self.upstreamID = upstreamID
            self.completeUpstream = completeUpstream
        }
    }

    private struct Shared: Sendable {
        let key: SubscriptionKey
        let request: GraphQLRequest
        let order: Int
        var listeners: ArrivalOrderedSet<Listener>
    }

    /// `subscriptions.dedupe`.
    package let dedupe: Bool
    private var shared: [String: Shared] = [:]
    private var byKey: [SubscriptionKey: String] = [:]
    private var upstreamIDOfListener: [Listener: String] = [:]
    private var lastOrder = 0

    package init(dedupe: Bool = true) {
        self.dedupe = dedupe
    }

    /// Number of live upstream subscriptions (`gqlgate_upstream_subscriptions_active`).
    package var upstreamCount: Int { shared.count }

    /// Number of listeners (`gqlgate_subscriptions_active`).
    package var listenerCount: Int { upstreamIDOfListener.count }

    /// Adds `listener` for the subscription `key`, sent upstream as `request`
    /// when it is the first of its key. A listener already registered keeps
    /// its subscription and gets its current id back.
    package mutating func add(_ listener: Listener, key: SubscriptionKey, request: GraphQLRequest) -> Addition {
        if let current = upstreamIDOfListener[listener] {
            return Addition(upstreamID: current, subscribeUpstream: false)
        }
        if dedupe, let id = byKey[key] {
            shared[id]?.listeners.insert(listener)
            upstreamIDOfListener[listener] = id
            return Addition(upstreamID: id, subscribeUpstream: false)
        }
        lastOrder += 1
        let id = String(lastOrder)
        var listeners = ArrivalOrderedSet<Listener>()
        listeners.insert(listener)
        shared[id] = Shared(key: key, request: request, order: lastOrder, listeners: listeners)
        if dedupe { byKey[key] = id }
        upstreamIDOfListener[listener] = id
        return Addition(upstreamID: id, subscribeUpstream: true)
    }

    /// Removes `listener`; nil when it was not registered (or its subscription already ended).
    package mutating func remove(_ listener: Listener) -> Removal? {
        guard let id = upstreamIDOfListener.removeValue(forKey: listener), shared[id] != nil else { return nil }
        shared[id]?.listeners.remove(listener)  // in place: a copy of the entry would copy every listener
        guard let entry = shared[id], entry.listeners.isEmpty else {
            return Removal(upstreamID: id, completeUpstream: false)
        }
        forget(id, key: entry.key)
        return Removal(upstreamID: id, completeUpstream: true)
    }

    /// The listeners an event of upstream subscription `upstreamID` fans out to, in the order they came.
    package func listeners(of upstreamID: String) -> [Listener] {
        shared[upstreamID]?.listeners.elements ?? []
    }

    /// The upstream ended `upstreamID` (complete or error): removes it and returns every listener to tell.
    package mutating func end(_ upstreamID: String) -> [Listener] {
        guard let entry = shared[upstreamID] else { return [] }
        let listeners = entry.listeners.elements
        for listener in listeners { upstreamIDOfListener[listener] = nil }
        forget(upstreamID, key: entry.key)
        return listeners
    }

    /// Every live upstream subscription, in the order they were made: what to
    /// subscribe again on a new connection.
    package var liveSubscriptions: [(upstreamID: String, request: GraphQLRequest)] {
        shared.sorted { $0.value.order < $1.value.order }.map { ($0.key, $0.value.request) }
    }

    private mutating func forget(_ id: String, key: SubscriptionKey) {
        shared[id] = nil
        if byKey[key] == id { byKey[key] = nil }
    }
}
