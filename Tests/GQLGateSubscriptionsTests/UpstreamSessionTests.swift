import GQLGateCore
import GQLGatePipeline
import GQLGateSubscriptions
import Testing

private let initPayload = JSONValue.object([("Authorization", .string("Bearer t"))])
private let ack = #"{"type":"connection_ack"}"#
private let ping = #"{"type":"ping"}"#
private let pong = #"{"type":"pong"}"#

private func subscribeMessage(_ id: String, field: String = "tick") -> String {
    #"{"type":"subscribe","id":"\#(id)","payload":{"query":"subscription { \#(field) }"}}"#
}

private func startMessage(_ id: String, field: String = "tick") -> String {
    #"{"type":"start","id":"\#(id)","payload":{"query":"subscription { \#(field) }"}}"#
}

/// Reconnects after 250 ms, 500 ms, 1 s, ... (the low end of each jitter range).
private func lowJitterBackoff() -> ReconnectBackoff {
    ReconnectBackoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(8), stableAfter: .seconds(30), random: { 0 })
}

private func settings(_ subprotocol: WebSocketSubprotocol = .graphqlTransportWS, reconnect: ReconnectBackoff? = lowJitterBackoff(),
                      idleTimeout: Duration? = nil) -> UpstreamSessionSettings {
    UpstreamSessionSettings(subprotocol: subprotocol, ackTimeout: .seconds(5), keepalive: .seconds(15), pongTimeout: .seconds(10),
                            keepAliveTimeout: .seconds(30), reconnect: reconnect, idleTimeout: idleTimeout)
}

/// An upstream session driven with a mock clock.
private struct Harness {
    var session: UpstreamSession
    var clock = MockClock()

    init(_ settings: UpstreamSessionSettings) {
        session = UpstreamSession(settings: settings)
    }

    mutating func handle(_ event: UpstreamSessionEvent) -> [UpstreamSessionAction] {
        session.handle(event, now: clock.now)
    }

    mutating func receive(_ text: String) -> [UpstreamSessionAction] {
        handle(.message(text))
    }

    mutating func tick(after duration: Duration) -> [UpstreamSessionAction] {
        clock.advance(by: duration)
        return handle(.timer)
    }

    /// Subscribes `ids` and brings the connection up to the ack.
    mutating func ready(with ids: [String]) {
        for id in ids { _ = handle(.subscribe(id: id, request: request())) }
        _ = handle(.connected(initPayload: initPayload))
        _ = receive(ack)
    }
}

@Suite struct UpstreamSessionTests {
    // MARK: - Connecting

    @Test func theFirstSubscriptionConnectsInitialisesAndSubscribesAfterTheAck() {
        var upstream = Harness(settings())
        #expect(upstream.handle(.subscribe(id: "1", request: request())) == [.connect])
        #expect(upstream.handle(.subscribe(id: "2", request: request("other"))) == [])
        #expect(upstream.handle(.connected(initPayload: initPayload))
            == [.send(#"{"type":"connection_init","payload":{"Authorization":"Bearer t"}}"#), .wakeUp(at: upstream.clock.at(.seconds(5)))])
        #expect(!upstream.session.isReady)
        #expect(upstream.receive(ack) == [.send(subscribeMessage("1")), .send(subscribeMessage("2", field: "other")),
                                          .wakeUp(at: upstream.clock.at(.seconds(15)))])
        #expect(upstream.session.isReady)
        #expect(upstream.handle(.subscribe(id: "3", request: request())) == [.send(subscribeMessage("3"))])
    }

    @Test func noAckInTimeClosesAndReconnects() {
        var upstream = Harness(settings())
        _ = upstream.handle(.subscribe(id: "1", request: request()))
        _ = upstream.handle(.connected(initPayload: nil))
        #expect(upstream.tick(after: .milliseconds(4999)) == [.wakeUp(at: upstream.clock.at(.seconds(5)))])
        #expect(upstream.tick(after: .milliseconds(1)) == [.close(.ackTimeout), .connectionLost(resubscribing: ["1"]),
                                                           .wakeUp(at: upstream.clock.at(.milliseconds(5250)))])
        #expect(upstream.tick(after: .milliseconds(250)) == [.connect])
    }

    // MARK: - Results

    @Test func resultsErrorsAndCompletionsAreReportedByID() {
        var upstream = Harness(settings())
        upstream.ready(with: ["1", "2", "3"])
        #expect(upstream.receive(#"{"type":"next","id":"1","payload":{"data":{"tick":1}}}"#)
            == [.result(id: "1", payload: SerializedJSON(trusted: #"{"data":{"tick":1}}"#))])
        #expect(upstream.receive(#"{"type":"error","id":"2","payload":[{"message":"no"}]}"#) == [.failed(id: "2", errors: [graphQLError("no")])])
        #expect(upstream.receive(#"{"type":"complete","id":"3"}"#) == [.completed(id: "3")])
        #expect(upstream.receive(#"{"type":"next","id":"3","payload":{"data":null}}"#) == [])
        #expect(upstream.receive(#"{"type":"next","id":"9","payload":{"data":null}}"#) == [])
        #expect(upstream.session.liveSubscriptions == ["1"])
    }

    @Test func unsubscribeSendsCompleteForSubscriptionsTheUpstreamKnows() {
        var upstream = Harness(settings())
        upstream.ready(with: ["1"])
        #expect(upstream.handle(.unsubscribe(id: "1")) == [.send(#"{"type":"complete","id":"1"}"#)])
        #expect(upstream.handle(.unsubscribe(id: "1")) == [])
    }

    @Test func unsubscribeBeforeTheAckSendsNothingAndTheSubscriptionIsNeverSent() {
        var upstream = Harness(settings())
        _ = upstream.handle(.subscribe(id: "1", request: request()))
        _ = upstream.handle(.subscribe(id: "2", request: request()))
        _ = upstream.handle(.connected(initPayload: nil))
        #expect(upstream.handle(.unsubscribe(id: "1")) == [])
        #expect(upstream.receive(ack).sent == [subscribeMessage("2")])
    }

    // MARK: - Keep-alive

    @Test func pingsEveryKeepaliveAndExpectsThePong() {
        var upstream = Harness(settings())
        upstream.ready(with: ["1"])
        #expect(upstream.tick(after: .seconds(15)) == [.send(ping), .wakeUp(at: upstream.clock.at(.seconds(25)))])
        #expect(upstream.receive(pong) == [.wakeUp(at: upstream.clock.at(.seconds(30)))])
        #expect(upstream.tick(after: .seconds(15)) == [.send(ping), .wakeUp(at: upstream.clock.at(.seconds(40)))])
    }

    @Test func aMissingPongCountsAsALostConnection() {
        var upstream = Harness(settings())
        upstream.ready(with: ["1"])
        _ = upstream.tick(after: .seconds(15))
        #expect(upstream.tick(after: .milliseconds(9999)) == [.wakeUp(at: upstream.clock.at(.seconds(25)))])
        #expect(upstream.tick(after: .milliseconds(1)) == [.close(.keepAliveTimeout), .connectionLost(resubscribing: ["1"]),
                                                           .wakeUp(at: upstream.clock.at(.milliseconds(25_250)))])
    }

    @Test func theUpstreamsPingIsAnswered() {
        var upstream = Harness(settings())
        upstream.ready(with: ["1"])
        #expect(upstream.receive(ping) == [.send(pong)])
    }

    // MARK: - Legacy graphql-ws upstream

    @Test func legacyUsesStartStopAndConnectionTerminate() {
        var upstream = Harness(settings(.graphqlWS))
        _ = upstream.handle(.subscribe(id: "1", request: request()))
        #expect(upstream.handle(.connected(initPayload: initPayload)).sent == [#"{"type":"connection_init","payload":{"Authorization":"Bearer t"}}"#])
        #expect(upstream.receive(ack) == [.send(startMessage("1"))])
        #expect(upstream.receive(#"{"type":"data","id":"1","payload":{"data":{"tick":2}}}"#)
            == [.result(id: "1", payload: SerializedJSON(trusted: #"{"data":{"tick":2}}"#))])
        #expect(upstream.receive(#"{"type":"error","id":"1","payload":{"message":"bad"}}"#) == [.failed(id: "1", errors: [graphQLError("bad")])])
        _ = upstream.handle(.subscribe(id: "2", request: request()))
        #expect(upstream.handle(.unsubscribe(id: "2")) == [.send(#"{"type":"stop","id":"2"}"#)])
        #expect(upstream.handle(.shutdown) == [.send(#"{"type":"connection_terminate"}"#), .close(.normal)])
    }

    @Test func legacyWatchesKeepAlivesOnceTheFirstArrived() {
        var upstream = Harness(settings(.graphqlWS))
        upstream.ready(with: ["1"])
        #expect(upstream.tick(after: .seconds(100)) == [])
        #expect(upstream.receive(#"{"type":"ka"}"#) == [.wakeUp(at: upstream.clock.at(.seconds(130)))])
        upstream.clock.advance(by: .seconds(20))
        #expect(upstream.receive(#"{"type":"ka"}"#) == [])
        #expect(upstream.tick(after: .seconds(10)) == [.wakeUp(at: upstream.clock.at(.seconds(150)))])
        #expect(upstream.tick(after: .seconds(19)) == [.wakeUp(at: upstream.clock.at(.seconds(150)))])
        #expect(upstream.tick(after: .seconds(1)) == [.close(.keepAliveTimeout), .connectionLost(resubscribing: ["1"]),
                                                      .wakeUp(at: upstream.clock.at(.milliseconds(150_250)))])
    }

    @Test func legacyConnectionErrorCountsAsALostConnection() {
        var upstream = Harness(settings(.graphqlWS))
        _ = upstream.handle(.subscribe(id: "1", request: request()))
        _ = upstream.handle(.connected(initPayload: nil))
        #expect(upstream.receive(#"{"type":"connection_error","payload":{"message":"denied"}}"#)
            == [.close(.badResponse(#"connection_error: {"message":"denied"}"#)), .connectionLost(resubscribing: ["1"]),
                .wakeUp(at: upstream.clock.at(.milliseconds(250)))])
    }

    // MARK: - Losing the connection

    @Test func aLostConnectionIsReopenedAndEverySubscriptionResubscribedInOrder() {
        var upstream = Harness(settings())
        upstream.ready(with: ["2", "1", "3"])
        _ = upstream.handle(.unsubscribe(id: "1"))
        #expect(upstream.handle(.disconnected) == [.connectionLost(resubscribing: ["2", "3"]),
                                                   .wakeUp(at: upstream.clock.at(.milliseconds(250)))])
        #expect(upstream.receive(#"{"type":"next","id":"2","payload":{}}"#) == [])
        _ = upstream.handle(.subscribe(id: "4", request: request()))
        #expect(upstream.tick(after: .milliseconds(250)) == [.connect])
        _ = upstream.handle(.connected(initPayload: initPayload))
        #expect(upstream.receive(ack).sent == [subscribeMessage("2"), subscribeMessage("3"), subscribeMessage("4")])
    }

    @Test func failedConnectsBackOffFurtherUntilAConnectionStaysUp() {
        var upstream = Harness(settings())
        _ = upstream.handle(.subscribe(id: "1", request: request()))
        var delays: [Duration] = []
        for _ in 0..<6 {
            let lost = upstream.handle(.disconnected)
            guard case .wakeUp(let at)? = lost.last else {
                Issue.record("no reconnection planned: \(lost)")
                return
            }
            delays.append(at - upstream.clock.now)
            upstream.clock.advance(by: at - upstream.clock.now)
            #expect(upstream.handle(.timer) == [.connect])
        }
        #expect(delays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4)])

        _ = upstream.handle(.connected(initPayload: nil))
        _ = upstream.receive(ack)
        upstream.clock.advance(by: .seconds(31))
        _ = upstream.receive(pong)
        #expect(upstream.handle(.disconnected).contains(.wakeUp(at: upstream.clock.now + .milliseconds(250))))
    }

    @Test func aShortLivedConnectionDoesNotResetTheBackoff() {
        var upstream = Harness(settings())
        _ = upstream.handle(.subscribe(id: "1", request: request()))
        _ = upstream.handle(.disconnected)
        _ = upstream.tick(after: .milliseconds(250))
        _ = upstream.handle(.connected(initPayload: nil))
        _ = upstream.receive(ack)
        upstream.clock.advance(by: .seconds(5))
        #expect(upstream.handle(.disconnected).contains(.wakeUp(at: upstream.clock.now + .milliseconds(500))))
    }

    @Test func withoutReconnectEverySubscriptionFails() {
        var upstream = Harness(settings(reconnect: nil))
        upstream.ready(with: ["1", "2"])
        #expect(upstream.handle(.disconnected) == [.failed(id: "1", errors: [UpstreamSession.connectionLostError]),
                                                   .failed(id: "2", errors: [UpstreamSession.connectionLostError])])
        #expect(upstream.session.liveSubscriptions.isEmpty)
        #expect(upstream.handle(.subscribe(id: "3", request: request())) == [.connect])
    }

    @Test func nothingLeftToResubscribeMeansNoReconnect() {
        var upstream = Harness(settings())
        upstream.ready(with: ["1"])
        _ = upstream.handle(.disconnected)
        _ = upstream.handle(.unsubscribe(id: "1"))
        #expect(upstream.tick(after: .seconds(60)) == [])
        #expect(upstream.handle(.subscribe(id: "2", request: request())) == [.connect])
    }

    @Test func unreadableOrUnexpectedUpstreamMessagesDropTheConnection() {
        var garbage = Harness(settings())
        garbage.ready(with: ["1"])
        #expect(garbage.receive("<html>").first == .close(.badResponse("Invalid JSON at byte 0")))
        #expect(garbage.session.liveSubscriptions == ["1"])

        var wrongWay = Harness(settings())
        wrongWay.ready(with: ["1"])
        #expect(wrongWay.receive(subscribeMessage("1")).first == .close(.badResponse("Unexpected message of type 'subscribe' from the server")))
    }

    // MARK: - Idle and shutdown

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() {
        var upstream = Harness(settings(idleTimeout: .seconds(10)))
        upstream.ready(with: ["1"])
        upstream.clock.advance(by: .seconds(2))
        #expect(upstream.handle(.unsubscribe(id: "1")) == [.send(#"{"type":"complete","id":"1"}"#), .wakeUp(at: upstream.clock.at(.seconds(12)))])
        #expect(upstream.tick(after: .seconds(10)) == [.close(.normal)])
        #expect(upstream.handle(.subscribe(id: "2", request: request())) == [.connect])
    }

    @Test func aNewSubscriptionCancelsTheIdleClose() {
        var upstream = Harness(settings(idleTimeout: .seconds(10)))
        upstream.ready(with: ["1"])
        _ = upstream.handle(.unsubscribe(id: "1"))
        _ = upstream.handle(.subscribe(id: "2", request: request()))
        #expect(upstream.tick(after: .seconds(10)) == [.wakeUp(at: upstream.clock.at(.seconds(15)))])
    }

    @Test func shutdownClosesAndRefusesNewSubscriptions() {
        var upstream = Harness(settings())
        upstream.ready(with: ["1"])
        #expect(upstream.handle(.shutdown) == [.close(.normal)])
        #expect(upstream.handle(.disconnected) == [])
        #expect(upstream.handle(.subscribe(id: "2", request: request())) == [.failed(id: "2", errors: [UpstreamSession.shuttingDownError])])
    }
}
