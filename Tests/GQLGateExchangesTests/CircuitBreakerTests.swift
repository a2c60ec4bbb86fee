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
        guard case .admitted(let probe) = breaker.admit() else {
            Issue.record("refused")
            return
        }
        breaker.record(failed: failed, probe: probe)
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
        breaker.record(failed: false, probe: true)
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
        breaker.record(failed: true, probe: true)
        #expect(breaker.state == .open)
        #expect(breaker.admit() == .refused(retryAfter: .seconds(5)))
        #expect(changes.all == [.open, .halfOpen, .open])
    }

    @Test func aProbeThatEndsWithoutAnOutcomeLetsTheNextOneProbe() {
        let breaker = breaker()
        for _ in 0..<4 { attempt(breaker, failed: true) }
        manual.advance(by: .seconds(5))
        #expect(breaker.admit() == .admitted(probe: true))
        breaker.record(failed: nil, probe: true)
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

@Suite struct CircuitBreakerExchangeTests {
    let manual = ManualClock()

    @Test func gatewayAnswersAndOtherStatusesAreNotFailuresButBadGatewaysAndTimeoutsAre() async throws {
        let breaker = CircuitBreaker(settings: .init(errorRatio: 0.4, minRequests: 2, openFor: .seconds(5)), clock: manual.clock)
        let shed = Counter()
        let exchange = CircuitBreakerExchange(breaker: breaker, onShed: { shed.add() })
        let query = try analysedOperation(.query)
        for step in [ScriptedAttempts.Step.answer(500), .answer(429), .answer(404)] {
            _ = try? await exchange.handle(query, next: ScriptedAttempts([step]).next)
        }
        #expect(breaker.state == .closed)
        _ = try? await exchange.handle(query, next: ScriptedAttempts([.answer(503)]).next)
        _ = try? await exchange.handle(query, next: ScriptedAttempts([.fail(.timedOut)]).next)
        #expect(breaker.state == .open)
        let upstream = ScriptedAttempts([.answer(200)])
        await #expect(throws: GatewayError.upstreamCircuitOpen(retryAfter: .seconds(5))) {
            _ = try await exchange.handle(query, next: upstream.next)
        }
        #expect(upstream.calls == 0)
        #expect(shed.value == 1)
    }

    @Test func subscriptionsPassThroughAnOpenBreaker() async throws {
        let breaker = CircuitBreaker(settings: .init(errorRatio: 1, minRequests: 1), clock: manual.clock)
        breaker.record(failed: true, probe: false)
        let upstream = ScriptedAttempts([.answer(200)])
        _ = try await CircuitBreakerExchange(breaker: breaker).handle(try analysedOperation(.subscription), next: upstream.next)
        #expect(upstream.calls == 1)
    }
}

