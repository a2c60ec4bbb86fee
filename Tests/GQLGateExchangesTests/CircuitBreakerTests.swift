import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import Synchronization
import Testing

@Suite struct CircuitBreakerTests {
    let manual = ManualClock()
    let changes = Recorded<CircuitBreaker.State>()

    private func breaker(ratio: Double = 0.5, minRequests: Int = 4, window: Duration = .seconds(10),
                         openFor: Duration = .seconds(5)) -> CircuitBreaker {
        CircuitBreaker(settings: .init(errorRatio: ratio, minRequests: minRequests, window: window, openFor: openFor),
                       clock: manual.clock, onChange: { [changes] state in changes.add(state) })
    }

    private func attempt(_ breaker: CircuitBreaker, failed: Bool) {
        guard case .admitted = breaker.admit() else {
            Issue.record("refused")
            return
        }
        breaker.record(failed: failed)
    }

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

    @Test func failuresOlderThanTheWindowDoNotCount() {
        let breaker = breaker(window: .seconds(10))
        for _ in 0..<3 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(11))
        attempt(breaker, failed: true)
        #expect(breaker.state == .closed)
    }

    @Test func openRefusesWithTheOpenTimeLeftThenLetsOneProbeThrough() {
        let breaker = breaker(openFor: .seconds(5))
        for _ in 0..<4 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(2))
        #expect(breaker.admit() == .refused(retryAfter: .seconds(3)))
        manual.advance(by: .nanoseconds(2_999_999_999))
        #expect(breaker.admit() == .refused(retryAfter: .nanoseconds(1)))
        manual.advance(by: .nanoseconds(1))
        #expect(breaker.state == .halfOpen)
        #expect(breaker.admit() == .admitted(probe: true))
        #expect(breaker.admit() == .refused(retryAfter: .seconds(1)))
        breaker.record(failed: false)
        #expect(breaker.state == .closed)
        #expect(breaker.admit() == .admitted(probe: false))
        #expect(changes.all == [.open, .halfOpen, .closed])
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

    @Test func aFailedProbeOpensItAgainForTheWholeOpenTime() {
        let breaker = breaker(openFor: .seconds(5))
        for _ in 0..<4 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(5))
        #expect(breaker.admit() == .admitted(probe: true))
        breaker.record(failed: true)
        #expect(breaker.state == .open)
        #expect(breaker.admit() == .refused(retryAfter: .seconds(5)))
        #expect(changes.all == [.open, .halfOpen, .open])
    }

    @Test func aProbeThatEndsWithoutAnOutcomeLetsTheNextOneProbe() {
        let breaker = breaker()
        for _ in 0..<4 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(5))
        #expect(breaker.admit() == .admitted(probe: true))
        breaker.record(failed: nil)
        #expect(breaker.admit() == .admitted(probe: true))
    }

    @Test func afterClosingTheOldFailuresAreForgotten() {
        let breaker = breaker()
        for _ in 0..<4 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(5))
        attempt(breaker, failed: false)
        for _ in 0..<3 { attempt(breaker, failed: true) }
        #expect(breaker.state == .closed)
    }
}

@Suite struct CircuitBreakerStageTests {
    let manual = ManualClock()

    @Test func badGatewaysConnectionFailuresAndTimeoutsAreFailuresOtherAnswersAndCancellationsAreNot() {
        let breaker = CircuitBreaker(settings: .init(errorRatio: 0.4, minRequests: 2, openFor: .seconds(5)), clock: manual.clock)
        for status in [500, 429, 404] { breaker.record(.success(status)) }
        breaker.record(.failure(CancellationError()))
        breaker.record(.failure(GatewayError.upstreamTimeout("deadline")))
        #expect(breaker.state == .closed)
        breaker.record(.success(503))
        #expect(breaker.state == .closed)  // 1 of 4
        breaker.record(.failure(UpstreamFailure(kind: .timedOut, message: "slow")))
        #expect(breaker.state == .open)  // 2 of 5
    }

    @Test func anAnswerTooLargeCountsAsAnswered() {
        let breaker = CircuitBreaker(settings: .init(errorRatio: 0.5, minRequests: 2, openFor: .seconds(5)), clock: manual.clock)
        for _ in 0..<2 { breaker.record(.failure(UpstreamFailure(kind: .answerTooLarge, message: "larger than 10 bytes"))) }
        breaker.record(.success(503))
        #expect(breaker.state == .closed)  // 1 of 3
        breaker.record(.success(502))
        #expect(breaker.state == .open)  // 2 of 4
    }

    @Test func whileOpenQueriesAndMutationsAreRefusedWithTheOpenTimeLeft() throws {
        let breaker = CircuitBreaker(settings: .init(errorRatio: 1, minRequests: 1, openFor: .seconds(5)), clock: manual.clock)
        let shed = Counter()
        let stage = CircuitBreakerStage(breaker: breaker, onShed: { shed.add() })
        var query = try analysedOperation(.query)
        try stage.prepare(&query)
        breaker.record(.success(502))
        manual.advance(by: .seconds(2))
        #expect(throws: GatewayError.upstreamCircuitOpen(retryAfter: .seconds(3))) { try stage.prepare(&query) }
        var mutation = try analysedOperation(.mutation)
        #expect(throws: GatewayError.self) { try stage.prepare(&mutation) }
        #expect(shed.value == 2)
    }

    @Test func subscriptionsPassAnOpenBreaker() throws {
        let breaker = CircuitBreaker(settings: .init(errorRatio: 1, minRequests: 1), clock: manual.clock)
        breaker.record(failed: true)
        var subscription = try analysedOperation(.subscription)
        try CircuitBreakerStage(breaker: breaker).prepare(&subscription)
    }
}
