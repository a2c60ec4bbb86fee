import GQLGatePipeline
@testable import GQLGateSubscriptions
import Testing

private let initMessage = #"{"type":"connection_init","payload":{"authToken":"t"}}"#
private let ack = #"{"type":"connection_ack"}"#
private let ka = #"{"type":"ka"}"#

private func start(_ id: String, field: String = "tick") -> String {
    #"{"type":"start","id":"\#(id)","payload":{"query":"subscription { \#(field) }"}}"#
}

private func harness(_ settings: ClientProtocolSettings = ClientProtocolSettings()) -> ClientHarness<GraphQLWSServer> {
    ClientHarness(GraphQLWSServer(settings: settings))
}

/// A connection that was opened, initialised and acknowledged at the clock's start.
private func acknowledged(_ settings: ClientProtocolSettings = ClientProtocolSettings()) -> ClientHarness<GraphQLWSServer> {
    var connection = harness(settings)
    _ = connection.handle(.opened)
    _ = connection.receive(initMessage)
    _ = connection.handle(.initAccepted(ackPayload: nil))
    return connection
}

@Suite struct GraphQLWSServerTests {
    // MARK: - Initialisation and keep-alive

    @Test func initIsSurfacedThenAcknowledgedWithAnImmediateKeepAlive() {
        var connection = harness()
        #expect(connection.handle(.opened) == [.wakeUp(at: connection.clock.at(.seconds(3)))])
        #expect(connection.receive(initMessage) == [.authenticate(payload: .object([("authToken", .string("t"))]))])
        #expect(connection.handle(.initAccepted(ackPayload: nil))
            == [.send(ack), .send(ka), .wakeUp(at: connection.clock.at(.seconds(15)))])
    }

    @Test func keepAliveIsSentEveryIntervalWhateverTheTraffic() {
        var connection = acknowledged(ClientProtocolSettings(keepalive: .seconds(5)))
        _ = connection.receive(start("1"))
        connection.clock.advance(by: .seconds(4))
        _ = connection.handle(.result(id: "1", payload: payload(1)))
        #expect(connection.tick(after: .seconds(1)) == [.send(ka), .wakeUp(at: connection.clock.at(.seconds(10)))])
        #expect(connection.tick(after: .seconds(4)) == [.wakeUp(at: connection.clock.at(.seconds(10)))])
        #expect(connection.tick(after: .seconds(1)) == [.send(ka), .wakeUp(at: connection.clock.at(.seconds(15)))])
    }

    @Test func zeroKeepaliveSendsNoKeepAlive() {
        var connection = harness(ClientProtocolSettings(keepalive: .zero))
        _ = connection.handle(.opened)
        _ = connection.receive(initMessage)
        #expect(connection.handle(.initAccepted(ackPayload: nil)) == [.send(ack)])
        #expect(connection.tick(after: .seconds(60)) == [])
    }

    @Test func refusedInitSendsConnectionErrorThenCloses1011() {
        var connection = harness()
        _ = connection.handle(.opened)
        _ = connection.receive(initMessage)
        #expect(connection.handle(.initRejected(message: "Invalid API key"))
            == [.send(#"{"type":"connection_error","payload":{"message":"Invalid API key"}}"#), .close(.internalError)])
    }

    @Test func noInitWithinTheTimeoutCloses4408() {
        var connection = harness(ClientProtocolSettings(initTimeout: .seconds(1)))
        _ = connection.handle(.opened)
        #expect(connection.tick(after: .milliseconds(999)) == [.wakeUp(at: connection.clock.at(.seconds(1)))])
        #expect(connection.tick(after: .milliseconds(1)) == [.close(.initTimeout)])
    }

    @Test func aSecondInitGetsConnectionErrorAndChangesNothing() {
        var connection = acknowledged()
        _ = connection.receive(start("1"))
        #expect(connection.receive(initMessage)
            == [.send(#"{"type":"connection_error","payload":{"message":"Too many initialisation requests"}}"#)])
        #expect(connection.machine.runningOperations == ["1"])
    }

    // MARK: - Operations

    @Test func startsSentBeforeTheAckWaitForIt() {
        var connection = harness()
        _ = connection.handle(.opened)
        _ = connection.receive(initMessage)
        #expect(connection.receive(start("1")) == [])
        #expect(connection.receive(start("2", field: "other")) == [])
        #expect(connection.handle(.initAccepted(ackPayload: nil)) == [
            .send(ack), .send(ka),
            .startOperation(id: "1", request: request()), .startOperation(id: "2", request: request("other")),
            .wakeUp(at: connection.clock.at(.seconds(15))),
        ])
    }

    @Test func aWaitingStartCanBeStopped() {
        var connection = harness()
        _ = connection.handle(.opened)
        _ = connection.receive(initMessage)
        _ = connection.receive(start("1"))
        #expect(connection.receive(#"{"type":"stop","id":"1"}"#) == [.send(#"{"type":"complete","id":"1"}"#)])
        #expect(connection.handle(.initAccepted(ackPayload: nil)).contains(.startOperation(id: "1", request: request())) == false)
    }

    @Test func aRefusedInitDropsWaitingStarts() {
        var connection = harness()
        _ = connection.handle(.opened)
        _ = connection.receive(initMessage)
        _ = connection.receive(start("1"))
        let actions = connection.handle(.initRejected(message: "no"))
        #expect(!actions.contains(.startOperation(id: "1", request: request())))
    }

    @Test func startBeforeAnyInitGetsAnError() {
        var connection = harness()
        _ = connection.handle(.opened)
        #expect(connection.receive(start("1"))
            == [.send(#"{"type":"error","id":"1","payload":{"message":"Send connection_init before start"}}"#)])
    }

    @Test func resultsBecomeDataAndComplete() {
        var connection = acknowledged()
        #expect(connection.receive(start("1")) == [.startOperation(id: "1", request: request())])
        #expect(connection.handle(.result(id: "1", payload: payload(2))) == [.send(#"{"type":"data","id":"1","payload":{"n":2}}"#)])
        #expect(connection.handle(.completed(id: "1")) == [.send(#"{"type":"complete","id":"1"}"#)])
        #expect(connection.handle(.result(id: "1", payload: payload(3))) == [])
        #expect(connection.machine.resultMessage(id: "1", payload: payload(3), now: connection.clock.now) == nil)
    }

    @Test func resultMessageIsWhatHandlingTheResultSends() {
        var connection = acknowledged()
        _ = connection.receive(start("1"))
        #expect(connection.machine.resultMessage(id: "1", payload: payload(2), now: connection.clock.now)
            == #"{"type":"data","id":"1","payload":{"n":2}}"#)
    }

    @Test func aFailureSendsOneErrorObject() {
        var connection = acknowledged()
        _ = connection.receive(start("1"))
        #expect(connection.handle(.failed(id: "1", errors: [graphQLError("first"), graphQLError("second")]))
            == [.send(#"{"type":"error","id":"1","payload":{"message":"first"}}"#)])
        #expect(connection.machine.runningOperations.isEmpty)
    }

    @Test func stopEndsTheOperationAndAnswersComplete() {
        var connection = acknowledged()
        _ = connection.receive(start("1"))
        #expect(connection.receive(#"{"type":"stop","id":"1"}"#) == [.stopOperation(id: "1"), .send(#"{"type":"complete","id":"1"}"#)])
        #expect(connection.receive(#"{"type":"stop","id":"1"}"#) == [])
    }

    @Test func aStartWithARunningIDReplacesTheOperation() {
        var connection = acknowledged()
        _ = connection.receive(start("1"))
        #expect(connection.receive(start("1", field: "other")) == [.stopOperation(id: "1"), .startOperation(id: "1", request: request("other"))])
        #expect(connection.machine.runningOperations == ["1"])
    }

    @Test func operationsBeyondTheLimitGetAnError() {
        var connection = acknowledged(ClientProtocolSettings(maxPerConnection: 1))
        _ = connection.receive(start("1"))
        #expect(connection.receive(start("2")) == [.send(#"{"type":"error","id":"2","payload":{"message":"Too many operations on this "#
                + #"connection (subscriptions.max_per_connection is 1).","extensions":{"code":"TOO_MANY_SUBSCRIPTIONS"}}}"#)])
        #expect(connection.receive(start("1", field: "other")) == [.stopOperation(id: "1"), .startOperation(id: "1", request: request("other"))])
    }

    @Test func waitingStartsCountTowardsTheLimit() {
        var connection = harness(ClientProtocolSettings(maxPerConnection: 1))
        _ = connection.handle(.opened)
        _ = connection.receive(initMessage)
        _ = connection.receive(start("1"))
        #expect(connection.receive(start("2")).sent.count == 1)
        #expect(connection.handle(.initAccepted(ackPayload: nil)).filter {
            if case .startOperation = $0 { true } else { false }
        } == [.startOperation(id: "1", request: request())])
    }

    @Test func connectionTerminateStopsEverythingAndCloses() {
        var connection = acknowledged()
        _ = connection.receive(start("1"))
        #expect(connection.receive(#"{"type":"connection_terminate"}"#) == [.stopOperation(id: "1"), .close(.normal)])
        #expect(connection.receive(start("2")) == [])
    }

    // MARK: - Bad messages keep the socket open

    @Test func unreadableMessagesGetConnectionError() {
        var connection = acknowledged()
        #expect(connection.receive("nope") == [.send(#"{"type":"connection_error","payload":{"message":"Invalid JSON at byte 0"}}"#)])
        #expect(connection.receive(#"{"type":"bogus"}"#)
            == [.send(#"{"type":"connection_error","payload":{"message":"Invalid message type!"}}"#)])
    }

    @Test func badMessagesWithAnIDGetAnErrorForThatID() {
        var connection = acknowledged()
        #expect(connection.receive(#"{"type":"bogus","id":"5"}"#)
            == [.send(#"{"type":"error","id":"5","payload":{"message":"Invalid message type!"}}"#)])
        #expect(connection.receive(#"{"type":"start","id":"6","payload":{}}"#)
            == [.send(#"{"type":"error","id":"6","payload":{"message":"'start' payload needs a string 'query'"}}"#)])
    }

    @Test func aStartThatRepeatsAKeyGetsAnErrorForItsIDAndStartsNothing() {
        var connection = acknowledged()
        #expect(connection.receive(#"{"type":"start","id":"7","payload":{"query":"{ a { b } }","query":"{ hero { name } }"}}"#)
            == [.send(#"{"type":"error","id":"7","payload":{"message":"The message repeats the key \"query\" in one object"}}"#)])
        #expect(connection.receive(#"{"type":"start","id":"8","id":"9","payload":{"query":"{ a }"}}"#)
            == [.send(#"{"type":"connection_error","payload":{"message":"The message repeats the key \"id\" in one object"}}"#)])
    }

    @Test func serverOnlyMessagesFromTheClientGetConnectionError() {
        var connection = acknowledged()
        #expect(connection.receive(ka) == [.send(#"{"type":"connection_error","payload":{"message":"Invalid message type!"}}"#)])
    }

    // MARK: - Teardown

    @Test func aClosedSocketStopsEveryOperation() {
        var connection = acknowledged()
        _ = connection.receive(start("2"))
        _ = connection.receive(start("1"))
        #expect(connection.handle(.closed) == [.stopOperation(id: "1"), .stopOperation(id: "2")])
        #expect(connection.tick(after: .seconds(60)) == [])
    }

    @Test func shutdownCompletesEveryOperationThenCloses() {
        var connection = acknowledged()
        _ = connection.receive(start("1"))
        #expect(connection.handle(.shutdown) == [.stopOperation(id: "1"), .send(#"{"type":"complete","id":"1"}"#), .close(.goingAway)])
    }

    @Test func theFactoryPicksTheMachineForTheSubprotocol() {
        var legacy = makeClientProtocolStateMachine(for: .graphqlWS, settings: ClientProtocolSettings(keepalive: .zero))
        let clock = MockClock()
        _ = legacy.handle(.opened, now: clock.now)
        _ = legacy.handle(.message(initMessage), now: clock.now)
        #expect(legacy.handle(.initAccepted(ackPayload: nil), now: clock.now) == [.send(ack)])
        var modern = makeClientProtocolStateMachine(for: .graphqlTransportWS, settings: ClientProtocolSettings())
        _ = modern.handle(.opened, now: clock.now)
        #expect(modern.handle(.message(start("1")), now: clock.now) == [.close(.badRequest("Unknown message type 'start'"))])
    }
}
