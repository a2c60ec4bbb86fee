import GQLGateCore
import GQLGatePipeline
import GQLGateSubscriptions
import Testing

private let ack = #"{"type":"connection_ack"}"#

private func subscribeMessage(_ id: String, field: String = "tick") -> String {
    #"{"type":"subscribe","id":"\#(id)","payload":{"query":"subscription { \#(field) }"}}"#
}

private func key(_ field: String = "tick", scope: String = "") -> SubscriptionKey {
    SubscriptionKey(document: "subscription { \(field) }", operationName: nil, variables: nil, scope: scope)
}

/// Reconnects after 250 ms (the low end of the first jitter range), no keep-alive pings.
private func settings(reconnect: Bool = true) -> UpstreamSessionSettings {
    UpstreamSessionSettings(
        ackTimeout: .seconds(5), keepalive: .zero,
        reconnect: reconnect ? ReconnectBackoff(initialDelay: .milliseconds(500), random: { 0 }) : nil, idleTimeout: nil)
}

/// A multiplexer with string listeners, driven with a mock clock.
private struct Harness {
    var multiplexer: UpstreamMultiplexer<String>
    var clock = MockClock()

    init(dedupe: Bool = true, reconnect: Bool = true) {
        multiplexer = UpstreamMultiplexer(settings: settings(reconnect: reconnect), dedupe: dedupe)
    }

    mutating func add(_ listener: String, _ field: String = "tick", scope: String = "") -> [UpstreamMultiplexer<String>.Action] {
        multiplexer.add(listener, key: key(field, scope: scope), request: request(field), now: clock.now)
    }

    mutating func remove(_ listener: String) -> [UpstreamMultiplexer<String>.Action] {
        multiplexer.remove(listener, now: clock.now)
    }

    mutating func handle(_ event: UpstreamSessionEvent) -> [UpstreamMultiplexer<String>.Action] {
        multiplexer.handle(event, now: clock.now)
    }

    mutating func receive(_ text: String) -> [UpstreamMultiplexer<String>.Action] {
        handle(.message(text))
    }

    /// Connects and acknowledges, returning what the ack caused.
    mutating func ready() -> [UpstreamMultiplexer<String>.Action] {
        _ = handle(.connected(initPayload: nil))
        return receive(ack)
    }
}

@Suite struct UpstreamMultiplexerTests {
    @Test func identicalSubscriptionsShareOneUpstreamSubscriptionAndEveryEventFansOut() {
        var upstream = Harness()
        #expect(upstream.add("a") == [.upstreamSubscriptionStarted, .connect])
        #expect(upstream.add("b") == [])
        #expect(upstream.add("c", "other") == [.upstreamSubscriptionStarted])
        #expect(upstream.ready() == [.send(subscribeMessage("1")), .send(subscribeMessage("2", field: "other"))])
        #expect(upstream.multiplexer.upstreamCount == 2)
        #expect(upstream.multiplexer.listenerCount == 3)

        let event = SerializedJSON(trusted: #"{"data":{"tick":1}}"#)
        #expect(upstream.receive(#"{"type":"next","id":"1","payload":{"data":{"tick":1}}}"#)
            == [.deliver(["a", "b"], .result(event))])
    }

    @Test func theLastListenerLeavingCompletesUpstreamAtOnce() {
        var upstream = Harness()
        _ = upstream.add("a")
        _ = upstream.add("b")
        _ = upstream.ready()
        #expect(upstream.remove("a") == [])
        #expect(upstream.remove("b") == [.send(#"{"type":"complete","id":"1"}"#), .upstreamSubscriptionEnded])
        #expect(upstream.multiplexer.upstreamCount == 0)
        #expect(upstream.receive(#"{"type":"next","id":"1","payload":{"data":{"tick":2}}}"#) == [])
        #expect(upstream.remove("b") == [])
    }

    @Test func aListenerLeavingBeforeTheAckIsNeverSubscribed() {
        var upstream = Harness()
        _ = upstream.add("a")
        #expect(upstream.remove("a") == [.upstreamSubscriptionEnded])
        #expect(upstream.ready() == [])
    }

    @Test func withoutDedupeEveryListenerHasItsOwnUpstreamSubscription() {
        var upstream = Harness(dedupe: false)
        _ = upstream.add("a")
        #expect(upstream.add("b") == [.upstreamSubscriptionStarted])
        #expect(upstream.ready() == [.send(subscribeMessage("1")), .send(subscribeMessage("2"))])
    }

    @Test func differentScopesNeverShare() {
        var upstream = Harness()
        _ = upstream.add("a", scope: "authorization:Bearer 1\n")
        #expect(upstream.add("b", scope: "authorization:Bearer 2\n") == [.upstreamSubscriptionStarted])
        #expect(upstream.multiplexer.upstreamCount == 2)
    }

    @Test func upstreamCompleteAndErrorReachEveryListenerOfTheirSubscription() {
        var upstream = Harness()
        _ = upstream.add("a")
        _ = upstream.add("b")
        _ = upstream.add("c", "other")
        _ = upstream.ready()
        #expect(upstream.receive(#"{"type":"complete","id":"1"}"#)
            == [.deliver(["a", "b"], .completed), .upstreamSubscriptionEnded])
        #expect(upstream.receive(#"{"type":"error","id":"2","payload":[{"message":"boom"}]}"#)
            == [.deliver(["c"], .failed([graphQLError("boom")])), .upstreamSubscriptionEnded])
        #expect(upstream.multiplexer.listenerCount == 0)
        #expect(upstream.remove("a") == [])
    }

    @Test func aLostConnectionResubscribesEveryLiveSubscriptionAndListenersKeepListening() {
        var upstream = Harness()
        _ = upstream.add("a")
        _ = upstream.add("b", "other")
        _ = upstream.ready()
        #expect(upstream.handle(.disconnected)
            == [.connectionLost(resubscribing: 2), .wakeUp(at: upstream.clock.at(.milliseconds(250)))])
        upstream.clock.advance(by: .milliseconds(250))
        #expect(upstream.handle(.timer) == [.connect])
        #expect(upstream.ready() == [.send(subscribeMessage("1")), .send(subscribeMessage("2", field: "other"))])
        #expect(upstream.receive(#"{"type":"next","id":"2","payload":{"data":{"other":1}}}"#)
            == [.deliver(["b"], .result(SerializedJSON(trusted: #"{"data":{"other":1}}"#)))])
    }

    @Test func withoutReconnectALostConnectionFailsEveryListener() {
        var upstream = Harness(reconnect: false)
        _ = upstream.add("a")
        _ = upstream.add("b")
        _ = upstream.ready()
        #expect(upstream.handle(.disconnected) == [
            .deliver(["a", "b"], .failed([UpstreamSession.connectionLostError])),
            .upstreamSubscriptionEnded,
        ])
        #expect(upstream.multiplexer.listenerCount == 0)
    }

    @Test func shutdownCompletesEveryListenerAndRefusesNewOnes() {
        var upstream = Harness()
        _ = upstream.add("a")
        _ = upstream.add("b", "other")
        _ = upstream.ready()
        #expect(upstream.handle(.shutdown) == [
            .close(.normal), .deliver(["a"], .completed), .upstreamSubscriptionEnded, .deliver(["b"], .completed),
            .upstreamSubscriptionEnded,
        ])
        #expect(upstream.add("c") == [
            .upstreamSubscriptionStarted, .deliver(["c"], .failed([UpstreamSession.shuttingDownError])), .upstreamSubscriptionEnded,
        ])
    }
}
