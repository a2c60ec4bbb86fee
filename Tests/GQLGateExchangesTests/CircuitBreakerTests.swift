@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

/// The breaker's own probe: answers as told, counting the times it was sent.
final class ScriptedProbe: Sendable {
    private let state = Lock((answers: true, sent: 0))

    var sent: Int { state.withLock { $0.sent } }

    func answer(_ answers: Bool) {
        state.withLock { $0.answers = answers }
    }

    var probe: @Sendable () async -> Bool {
        {
            self.state.withLock { state in
                state.sent += 1
                return state.answers
            }
        }
    }
}

@Suite struct CircuitBreakerTests {
    let manual = ManualClock()
    let facts = RecordedFacts()
    let probe = ScriptedProbe()

    private func breaker(ratio: Double = 0.5, minRequests: Int = 4, window: Duration = .seconds(10),
                         openFor: Duration = .seconds(5)) -> CircuitBreaker {
        CircuitBreaker(settings: .init(errorRatio: ratio, minRequests: minRequests, window: window, openFor: openFor),
                       clock: manual.clock, probe: probe.probe, recorder: facts)
    }

    /// The states the breaker told its recorder, in order.
    private var stateChanges: [CircuitBreaker.State] {
        facts.gatewayFacts.compactMap { fact in
            if case .circuitStateChanged(let raw) = fact { CircuitBreaker.State(rawValue: raw) } else { nil }
        }
    }

    /// An attempt of one of four clients in turn, so that no one client makes most of the failures.
    private func attempt(_ breaker: CircuitBreaker, failed: Bool, client: String? = nil) {
        guard case .admitted = breaker.admit() else {
            Issue.record("refused")
            return
        }
        clientTurn.add()
        breaker.record(failed: failed, client: client ?? "client-\(clientTurn.value % 4)")
    }

    private let clientTurn = Counter()

    @Test func staysClosedBelowMinRequestsHoweverManyFail() {
        let breaker = breaker()
        for _ in 0..<3 { attempt(breaker, failed: true) }
        #expect(breaker.state == .closed)
        attempt(breaker, failed: true)
        #expect(breaker.state == .open)
    }

    @Test func opensAtExactlyTheErrorRatioAndNotBelowIt() {
        let below = breaker()
        for failed in [false, false, false, true] { attempt(below, failed: failed) }
        #expect(below.state == .closed)
        let at = breaker()
        for failed in [false, false, true, true] { attempt(at, failed: failed) }
        #expect(at.state == .open)
    }

    @Test func oneClientCannotBeMostOfTheFailuresThatOpenIt() {
        let breaker = breaker(minRequests: 4)
        for _ in 0..<12 { attempt(breaker, failed: true, client: "attacker") }
        #expect(breaker.state == .closed)
        for _ in 0..<11 { attempt(breaker, failed: true, client: "another") }
        #expect(breaker.state == .closed)  // 12 of 23 are the attacker's
        attempt(breaker, failed: true, client: "a third")
        #expect(breaker.state == .open)  // 12 of 24: half, not most
    }

    @Test func failuresOlderThanTheWindowDoNotCount() {
        let breaker = breaker(window: .seconds(10))
        for _ in 0..<3 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(11))
        attempt(breaker, failed: true)
        #expect(breaker.state == .closed)
    }

    @Test func openRefusesWithTheOpenTimeLeftThenProbesItselfAndClientsWait() async {
        let breaker = breaker(openFor: .seconds(5))
        for _ in 0..<4 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(2))
        #expect(breaker.admit() == .refused(retryAfter: .seconds(3)))
        manual.advance(by: .nanoseconds(2_999_999_999))
        #expect(breaker.admit() == .refused(retryAfter: .nanoseconds(1)))
        manual.advance(by: .nanoseconds(1))
        #expect(breaker.state == .halfOpen)
        // The first client after the open time starts the breaker's own probe; it is not let through.
        #expect(breaker.admit() == .refused(retryAfter: .seconds(1)))
        #expect(await eventually { breaker.state == .closed })
        #expect(probe.sent == 1)
        #expect(breaker.admit() == .admitted)
        #expect(stateChanges == [.open, .halfOpen, .closed])
    }

    @Test func theOpenTimeLeftIsWhatReconnectsWaitFor() {
        let breaker = breaker(openFor: .seconds(5))
        #expect(breaker.openTimeLeft == nil)
        for _ in 0..<4 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(1))
        #expect(breaker.openTimeLeft == .seconds(4))
        manual.advance(by: .seconds(4))
        #expect(breaker.openTimeLeft == nil)
    }

    @Test func aFailedProbeOpensItAgainForTheWholeOpenTime() async {
        let breaker = breaker(openFor: .seconds(5))
        for _ in 0..<4 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(5))
        probe.answer(false)
        #expect(breaker.admit() == .refused(retryAfter: .seconds(1)))
        #expect(await eventually { breaker.state == .open })
        #expect(breaker.admit() == .refused(retryAfter: .seconds(5)))
        #expect(stateChanges == [.open, .halfOpen, .open])
        manual.advance(by: .seconds(5))
        probe.answer(true)
        _ = breaker.admit()
        #expect(await eventually { breaker.state == .closed })
        #expect(probe.sent == 2)
    }

    @Test func afterClosingTheOldFailuresAreForgotten() async {
        let breaker = breaker()
        for _ in 0..<4 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(5))
        _ = breaker.admit()
        #expect(await eventually { breaker.state == .closed })
        for _ in 0..<3 { attempt(breaker, failed: true) }
        #expect(breaker.state == .closed)
    }
}

@Suite struct CircuitBreakerStageTests {
    let manual = ManualClock()

    @Test func badGatewaysConnectionFailuresAndTimeoutsAreFailuresOtherAnswersAndCancellationsAreNot() {
        for status in [500, 429, 404, 200] { #expect(CircuitBreaker.failed(.answered(status: status)) == false) }
        for status in [502, 503, 504] { #expect(CircuitBreaker.failed(.answered(status: status)) == true) }
        #expect(CircuitBreaker.failed(UpstreamAttemptOutcome(error: CancellationError())) == nil)
        #expect(CircuitBreaker.failed(UpstreamAttemptOutcome(error: GatewayError.upstreamTimeout("deadline"))) == nil)
        #expect(CircuitBreaker.failed(UpstreamAttemptOutcome(error: UpstreamFailure(kind: .timedOut, message: "slow"))) == true)
        #expect(CircuitBreaker.failed(UpstreamAttemptOutcome(error: UpstreamFailure(kind: .notReached, message: "refused"))) == true)
        #expect(CircuitBreaker.failed(.failed(.failedAfterSend)) == true)
        #expect(CircuitBreaker.failed(.failed(.answerTooLarge)) == false)
    }

    @Test func whileOpenQueriesAndMutationsAreRefusedWithTheOpenTimeLeft() async throws {
        let breaker = CircuitBreaker(settings: .init(errorRatio: 1, minRequests: 2, openFor: .seconds(5)), clock: manual.clock,
                                     probe: { true })
        let stage = CircuitBreakerExchange(breaker: breaker)
        let facts = RecordedFacts()
        let failing: ExchangeNext = { _ in .single(GraphQLResponse(status: 502, headers: [:], body: Bytes("bad gateway"), source: .upstream)) }
        for client in ["one", "two"] {
            var query = try analysedOperation(.query)
            query.clientID = client
            #expect(try await stage.handle(query, next: failing).first()?.status == 502)
        }
        manual.advance(by: .seconds(2))
        await #expect(throws: GatewayError.upstreamCircuitOpen(retryAfter: .seconds(3))) {
            _ = try await stage.handle(facts.tracking(try analysedOperation(.query)), next: failing)
        }
        await #expect(throws: GatewayError.self) { _ = try await stage.handle(facts.tracking(try analysedOperation(.mutation)), next: failing) }
        #expect(facts.sheds(.circuitOpen) == 2)
    }

    @Test func theStageTellsTheBreakerWhoseAttemptFailed() async throws {
        let breaker = CircuitBreaker(settings: .init(errorRatio: 0.5, minRequests: 2, openFor: .seconds(5)), clock: manual.clock,
                                     probe: { true })
        let stage = CircuitBreakerExchange(breaker: breaker)
        let timingOut: ExchangeNext = { _ in throw UpstreamFailure(kind: .timedOut, message: "slow") }
        for _ in 0..<5 {
            var mine = try analysedOperation(.query)
            mine.clientID = "one"
            await #expect(throws: UpstreamFailure.self) { _ = try await stage.handle(mine, next: timingOut) }
        }
        #expect(breaker.state == .closed)
        var theirs = try analysedOperation(.query)
        theirs.clientID = "two"
        for _ in 0..<5 { await #expect(throws: UpstreamFailure.self) { _ = try await stage.handle(theirs, next: timingOut) } }
        #expect(breaker.state == .open)
    }

    @Test func subscriptionsPassAnOpenBreaker() async throws {
        let breaker = CircuitBreaker(settings: .init(errorRatio: 1, minRequests: 1), clock: manual.clock, probe: { true })
        breaker.record(failed: true, client: nil)
        let passed: ExchangeNext = { _ in .single(GraphQLResponse(status: 200, headers: [:], body: Bytes("{}"), source: .upstream)) }
        #expect(try await CircuitBreakerExchange(breaker: breaker).handle(try analysedOperation(.subscription), next: passed).first()?.status == 200)
    }
}
