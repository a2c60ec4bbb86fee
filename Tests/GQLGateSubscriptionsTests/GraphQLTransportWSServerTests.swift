import GQLGatePipeline
@testable import GQLGateSubscriptions
import Testing

private let initMessage = #"{"type":"connection_init","payload":{"X-Api-Key":"k"}}"#
private let ack = #"{"type":"connection_ack"}"#

private func subscribe(_ id: String, field: String = "tick") -> String {
    #"{"type":"subscribe","id":"\#(id)","payload":{"query":"subscription { \#(field) }"}}"#
}

private func harness(_ settings: ClientProtocolSettings = ClientProtocolSettings()) -> ClientHarness<GraphQLTransportWSServer> {
    ClientHarness(GraphQLTransportWSServer(settings: settings))
}

/// A connection that was opened, initialised and acknowledged at the clock's start.
private func acknowledged(_ settings: ClientProtocolSettings = ClientProtocolSettings()) -> ClientHarness<GraphQLTransportWSServer> {
    var connection = harness(settings)
    _ = connection.handle(.opened)
    _ = connection.receive(initMessage)
    _ = connection.handle(.initAccepted(ackPayload: nil))
    return connection
}

@Suite struct GraphQLTransportWSServerTests {
    // MARK: - Initialisation

    @Test func initPayloadIsSurfacedThenAcknowledged() {
        var connection = harness()
        #expect(connection.handle(.opened) == [.wakeUp(at: connection.clock.at(.seconds(3)))])
        #expect(connection.receive(initMessage) == [.authenticate(payload: .object([("X-Api-Key", .string("k"))]))])
        #expect(connection.handle(.initAccepted(ackPayload: nil)) == [.send(ack), .wakeUp(at: connection.clock.at(.seconds(15)))])
    }

    @Test func ackCarriesTheCallersPayload() {
        var connection = harness(ClientProtocolSettings(keepalive: .zero))
        _ = connection.handle(.opened)
        _ = connection.receive(#"{"type":"connection_init"}"#)
        #expect(connection.handle(.initAccepted(ackPayload: .object([("v", .integer(1))])))
            == [.send(#"{"type":"connection_ack","payload":{"v":1}}"#)])
    }

    @Test func refusedInitClosesForbidden() {
        var connection = harness()
        _ = connection.handle(.opened)
        _ = connection.receive(initMessage)
        #expect(connection.handle(.initRejected(message: "bad key")) == [.close(.forbidden)])
        #expect(connection.receive(initMessage) == [])
    }

    @Test func noInitWithinTheTimeoutCloses4408() {
        var connection = harness(ClientProtocolSettings(initTimeout: .seconds(2)))
        #expect(connection.handle(.opened) == [.wakeUp(at: connection.clock.at(.seconds(2)))])
        #expect(connection.tick(after: .milliseconds(1999)) == [.wakeUp(at: connection.clock.at(.seconds(2)))])
        #expect(connection.tick(after: .milliseconds(1)) == [.close(.initTimeout)])
    }

    @Test func anInitInTimeStopsTheInitTimer() {
        var connection = harness(ClientProtocolSettings(initTimeout: .seconds(2)))
        _ = connection.handle(.opened)
        _ = connection.receive(initMessage)
        #expect(connection.tick(after: .seconds(5)) == [])
    }

    @Test func aSecondInitCloses4429WhileAuthenticatingAndAfter() {
        var authenticating = harness()
        _ = authenticating.handle(.opened)
        _ = authenticating.receive(initMessage)
        #expect(authenticating.receive(initMessage) == [.close(.tooManyInitRequests)])

        var ready = acknowledged()
        _ = ready.receive(subscribe("1"))
        #expect(ready.receive(initMessage) == [.stopOperation(id: "1"), .close(.tooManyInitRequests)])
    }

    @Test func subscribeBeforeTheAckCloses4401() {
        var fresh = harness()
        _ = fresh.handle(.opened)
        #expect(fresh.receive(subscribe("1")) == [.close(.unauthorized)])

        var authenticating = harness()
        _ = authenticating.handle(.opened)
        _ = authenticating.receive(initMessage)
        #expect(authenticating.receive(subscribe("1")) == [.close(.unauthorized)])
    }

    // MARK: - Operations

    @Test func subscribeStartsAnOperationAndResultsFlowBack() {
        var connection = acknowledged()
        #expect(connection.receive(subscribe("a")) == [.startOperation(id: "a", request: request())])
        #expect(connection.handle(.result(id: "a", payload: payload(1)))
            == [.send(#"{"type":"next","id":"a","payload":{"n":1}}"#)])
        #expect(connection.handle(.completed(id: "a")) == [.send(#"{"type":"complete","id":"a"}"#)])
        #expect(connection.machine.runningOperations.isEmpty)
    }

    @Test func operationErrorsEndTheOperationWithoutComplete() {
        var connection = acknowledged()
        _ = connection.receive(subscribe("a"))
        #expect(connection.handle(.failed(id: "a", errors: [graphQLError("boom")]))
            == [.send(#"{"type":"error","id":"a","payload":[{"message":"boom"}]}"#)])
        #expect(connection.handle(.completed(id: "a")) == [])
    }

    @Test func aFailureWithoutErrorsStillSendsOne() {
        var connection = acknowledged()
        _ = connection.receive(subscribe("a"))
        #expect(connection.handle(.failed(id: "a", errors: []))
            == [.send(#"{"type":"error","id":"a","payload":[{"message":"Unknown error"}]}"#)])
    }

    @Test func aRunningIDCloses4409() {
        var connection = acknowledged()
        _ = connection.receive(subscribe("a"))
        _ = connection.receive(subscribe("b"))
        #expect(connection.receive(subscribe("a")) == [.stopOperation(id: "a"), .stopOperation(id: "b"),
                                                       .close(.subscriberExists("a"))])
    }

    @Test func anIDMayBeReusedAfterCompleteOrError() {
        var connection = acknowledged()
        _ = connection.receive(subscribe("a"))
        _ = connection.handle(.completed(id: "a"))
        #expect(connection.receive(subscribe("a")) == [.startOperation(id: "a", request: request())])
        _ = connection.handle(.failed(id: "a", errors: [graphQLError("x")]))
        #expect(connection.receive(subscribe("a", field: "other")) == [.startOperation(id: "a", request: request("other"))])
    }

    @Test func clientCompleteStopsTheOperationAndLateResultsAreDropped() {
        var connection = acknowledged()
        _ = connection.receive(subscribe("a"))
        #expect(connection.receive(#"{"type":"complete","id":"a"}"#) == [.stopOperation(id: "a")])
        #expect(connection.handle(.result(id: "a", payload: payload(1))) == [])
        #expect(connection.receive(#"{"type":"complete","id":"a"}"#) == [])
        #expect(connection.receive(subscribe("a")) == [.startOperation(id: "a", request: request())])
    }

    @Test func resultMessageIsWhatHandlingTheResultSends() {
        var connection = acknowledged()
        _ = connection.receive(subscribe("a"))
        #expect(connection.machine.resultMessage(id: "a", payload: payload(1), now: connection.clock.now)
            == #"{"type":"next","id":"a","payload":{"n":1}}"#)
        #expect(connection.machine.resultMessage(id: "x", payload: payload(1), now: connection.clock.now) == nil)
        _ = connection.receive(#"{"type":"complete","id":"a"}"#)
        #expect(connection.machine.resultMessage(id: "a", payload: payload(1), now: connection.clock.now) == nil)
    }

    @Test func resultsForUnknownIDsAreDropped() {
        var connection = acknowledged()
        #expect(connection.handle(.result(id: "x", payload: payload(1))) == [])
        #expect(connection.handle(.failed(id: "x", errors: [])) == [])
        #expect(connection.handle(.completed(id: "x")) == [])
    }

    @Test func operationsBeyondTheLimitGetAnErrorAndTheSocketStaysOpen() {
        var connection = acknowledged(ClientProtocolSettings(maxPerConnection: 2))
        _ = connection.receive(subscribe("1"))
        _ = connection.receive(subscribe("2"))
        let refused = connection.receive(subscribe("3"))
        #expect(refused == [.send(#"{"type":"error","id":"3","payload":[{"message":"Too many operations on this connection "#
                + #"(subscriptions.max_per_connection is 2).","extensions":{"code":"TOO_MANY_SUBSCRIPTIONS"}}]}"#)])
        _ = connection.receive(#"{"type":"complete","id":"1"}"#)
        #expect(connection.receive(subscribe("3")) == [.startOperation(id: "3", request: request())])
    }

    // MARK: - Bad messages

    @Test func malformedMessagesClose4400WithTheReason() {
        var connection = acknowledged()
        _ = connection.receive(subscribe("1"))
        #expect(connection.receive("{") == [.stopOperation(id: "1"), .close(.badRequest("Invalid JSON at byte 1"))])

        var unknown = acknowledged()
        #expect(unknown.receive(#"{"type":"start","id":"1"}"#) == [.close(.badRequest("Unknown message type 'start'"))])

        var badSubscribe = acknowledged()
        #expect(badSubscribe.receive(#"{"type":"subscribe","id":"1","payload":{}}"#)
            == [.close(.badRequest("'subscribe' payload needs a string 'query'"))])
    }

    @Test func aSubscribeThatRepeatsAKeyCloses4400AndStartsNothing() {
        var connection = acknowledged()
        #expect(connection.receive(#"{"type":"subscribe","id":"1","payload":{"query":"{ a { b } }","query":"{ hero { name } }"}}"#)
            == [.close(.badRequest(#"The message repeats the key "query" in one object"#))])
    }

    @Test func serverOnlyMessagesFromTheClientClose4400() {
        var connection = acknowledged()
        #expect(connection.receive(#"{"type":"next","id":"1","payload":{}}"#)
            == [.close(.badRequest("Unexpected message of type 'next' from a client"))])
    }

    @Test func malformedMessagesBeforeInitAlsoClose4400() {
        var connection = harness()
        _ = connection.handle(.opened)
        #expect(connection.receive("42") == [.close(.badRequest("A message must be a JSON object"))])
    }

    // MARK: - Ping and keep-alive

    @Test func pingIsAnsweredAtAnyTime() {
        var fresh = harness()
        _ = fresh.handle(.opened)
        #expect(fresh.receive(#"{"type":"ping"}"#) == [.send(#"{"type":"pong"}"#)])
        var ready = acknowledged()
        #expect(ready.receive(#"{"type":"ping","payload":{"t":1}}"#) == [.send(#"{"type":"pong"}"#)])
        #expect(ready.receive(#"{"type":"pong"}"#) == [])
    }

    @Test func anIdleConnectionIsPingedEveryKeepalive() {
        var connection = acknowledged(ClientProtocolSettings(keepalive: .seconds(10)))
        #expect(connection.tick(after: .seconds(10)) == [.send(#"{"type":"ping"}"#), .wakeUp(at: connection.clock.at(.seconds(20)))])
        #expect(connection.tick(after: .seconds(10)) == [.send(#"{"type":"ping"}"#), .wakeUp(at: connection.clock.at(.seconds(30)))])
    }

    @Test func trafficPostponesThePing() {
        var connection = acknowledged(ClientProtocolSettings(keepalive: .seconds(10)))
        connection.clock.advance(by: .seconds(4))
        _ = connection.receive(#"{"type":"pong"}"#)
        #expect(connection.tick(after: .seconds(6)) == [.wakeUp(at: connection.clock.at(.seconds(14)))])
        connection.clock.advance(by: .seconds(2))
        _ = connection.receive(subscribe("a"))
        _ = connection.handle(.result(id: "a", payload: payload(1)))
        #expect(connection.tick(after: .seconds(2)) == [.wakeUp(at: connection.clock.at(.seconds(22)))])
        #expect(connection.tick(after: .seconds(8)) == [.send(#"{"type":"ping"}"#), .wakeUp(at: connection.clock.at(.seconds(32)))])
    }

    @Test func aResultSentWithoutHandlingPostponesThePingToo() {
        var connection = acknowledged(ClientProtocolSettings(keepalive: .seconds(10)))
        _ = connection.receive(subscribe("a"))
        connection.clock.advance(by: .seconds(8))
        _ = connection.machine.resultMessage(id: "a", payload: payload(1), now: connection.clock.now)
        #expect(connection.tick(after: .seconds(2)) == [.wakeUp(at: connection.clock.at(.seconds(18)))])
    }

    @Test func zeroKeepaliveSendsNoPings() {
        var connection = acknowledged(ClientProtocolSettings(keepalive: .zero))
        #expect(connection.tick(after: .seconds(3600)) == [])
    }

    // MARK: - Teardown

    @Test func aClosedSocketStopsEveryOperationAndEndsTheMachine() {
        var connection = acknowledged()
        _ = connection.receive(subscribe("b"))
        _ = connection.receive(subscribe("a"))
        #expect(connection.handle(.closed) == [.stopOperation(id: "a"), .stopOperation(id: "b")])
        #expect(connection.handle(.result(id: "a", payload: payload(1))) == [])
        #expect(connection.receive(#"{"type":"ping"}"#) == [])
    }

    @Test func shutdownCompletesEveryOperationThenCloses1001() {
        var connection = acknowledged()
        _ = connection.receive(subscribe("a"))
        #expect(connection.handle(.shutdown) == [.stopOperation(id: "a"), .send(#"{"type":"complete","id":"a"}"#),
                                                 .close(.goingAway)])
    }
}
