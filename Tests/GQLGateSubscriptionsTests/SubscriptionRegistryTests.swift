import GQLGatePipeline
import GQLGateSubscriptions
import Testing

private func key(_ document: String = "subscription { tick }", operationName: String? = nil, variables: JSONValue? = nil,
                 scope: String = "alice") -> SubscriptionKey {
    SubscriptionKey(document: document, operationName: operationName, variables: variables, scope: scope)
}

@Suite struct SubscriptionKeyTests {
    @Test func variableKeyOrderDoesNotMatter() {
        let a = key(variables: .object([("a", .integer(1)), ("b", .object([("y", .null), ("x", .bool(true))]))]))
        let b = key(variables: .object([("b", .object([("x", .bool(true)), ("y", .null)])), ("a", .integer(1))]))
        #expect(a == b)
        #expect(a.variables == #"{"a":1,"b":{"x":true,"y":null}}"#)
    }

    @Test func noVariablesNullAndAnEmptyObjectAreTheSame() {
        #expect(key(variables: nil) == key(variables: .null))
        #expect(key(variables: nil) == key(variables: .object([])))
    }

    @Test func documentOperationNameVariablesAndScopeEachMatter() {
        let base = key(operationName: "A", variables: .object([("a", .integer(1))]))
        #expect(base != key("subscription { other }", operationName: "A", variables: .object([("a", .integer(1))])))
        #expect(base != key(operationName: "B", variables: .object([("a", .integer(1))])))
        #expect(base != key(operationName: "A", variables: .object([("a", .integer(2))])))
        #expect(base != key(operationName: "A", variables: .object([("a", .integer(1))]), scope: "bob"))
    }
}

@Suite struct SubscriptionRegistryTests {
    @Test func identicalSubscriptionsShareOneUpstreamSubscription() {
        var registry = SubscriptionRegistry<String>()
        #expect(registry.add("c1", key: key(), request: request()) == .init(upstreamID: "1", subscribeUpstream: true))
        #expect(registry.add("c2", key: key(), request: request()) == .init(upstreamID: "1", subscribeUpstream: false))
        #expect(registry.add("c3", key: key(scope: "bob"), request: request()) == .init(upstreamID: "2", subscribeUpstream: true))
        #expect(registry.upstreamCount == 2)
        #expect(registry.listenerCount == 3)
    }

    @Test func eventsFanOutToEveryListenerInOrder() {
        var registry = SubscriptionRegistry<String>()
        _ = registry.add("c1", key: key(), request: request())
        _ = registry.add("c2", key: key(), request: request())
        _ = registry.add("c3", key: key(), request: request())
        #expect(registry.listeners(of: "1") == ["c1", "c2", "c3"])
        #expect(registry.listeners(of: "9") == [])
    }

    @Test func onlyTheLastListenerLeavingCompletesUpstream() {
        var registry = SubscriptionRegistry<String>()
        _ = registry.add("c1", key: key(), request: request())
        _ = registry.add("c2", key: key(), request: request())
        #expect(registry.remove("c1") == .init(upstreamID: "1", completeUpstream: false))
        #expect(registry.listeners(of: "1") == ["c2"])
        #expect(registry.remove("c2") == .init(upstreamID: "1", completeUpstream: true))
        #expect(registry.remove("c2") == nil)
        #expect(registry.upstreamCount == 0)
    }

    @Test func aSubscriptionAfterTheLastListenerLeftGetsANewUpstreamID() {
        var registry = SubscriptionRegistry<String>()
        _ = registry.add("c1", key: key(), request: request())
        _ = registry.remove("c1")
        #expect(registry.add("c1", key: key(), request: request()) == .init(upstreamID: "2", subscribeUpstream: true))
    }

    @Test func upstreamEndEndsEveryListener() {
        var registry = SubscriptionRegistry<String>()
        _ = registry.add("c1", key: key(), request: request())
        _ = registry.add("c2", key: key(), request: request())
        _ = registry.add("c3", key: key(scope: "bob"), request: request())
        #expect(registry.end("1") == ["c1", "c2"])
        #expect(registry.end("1") == [])
        #expect(registry.remove("c1") == nil)
        #expect(registry.listenerCount == 1)
        #expect(registry.add("c4", key: key(), request: request()) == .init(upstreamID: "3", subscribeUpstream: true))
    }

    @Test func withoutDedupeEveryListenerHasItsOwnUpstreamSubscription() {
        var registry = SubscriptionRegistry<String>(dedupe: false)
        #expect(registry.add("c1", key: key(), request: request()) == .init(upstreamID: "1", subscribeUpstream: true))
        #expect(registry.add("c2", key: key(), request: request()) == .init(upstreamID: "2", subscribeUpstream: true))
        #expect(registry.remove("c1") == .init(upstreamID: "1", completeUpstream: true))
        #expect(registry.listeners(of: "2") == ["c2"])
    }

    @Test func addingARegisteredListenerAgainChangesNothing() {
        var registry = SubscriptionRegistry<String>()
        _ = registry.add("c1", key: key(), request: request())
        #expect(registry.add("c1", key: key(scope: "bob"), request: request()) == .init(upstreamID: "1", subscribeUpstream: false))
        #expect(registry.upstreamCount == 1)
        #expect(registry.listenerCount == 1)
    }

    @Test func liveSubscriptionsListWhatToResubscribeInOrder() {
        var registry = SubscriptionRegistry<String>()
        _ = registry.add("c1", key: key("subscription { a }"), request: request("a"))
        _ = registry.add("c2", key: key("subscription { b }"), request: request("b"))
        _ = registry.add("c3", key: key("subscription { a }"), request: request("a"))
        _ = registry.add("c4", key: key("subscription { c }"), request: request("c"))
        _ = registry.remove("c2")
        let live = registry.liveSubscriptions
        #expect(live.map(\.upstreamID) == ["1", "3"])
        #expect(live.map(\.request) == [request("a"), request("c")])
    }
}
