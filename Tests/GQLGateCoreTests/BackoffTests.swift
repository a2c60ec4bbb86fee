import GQLGateCore
import Testing

@Suite struct BackoffTests {
    @Test func ceilingsDoubleFromTheInitialDelayUpToTheMaximum() {
        let backoff = Backoff(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), jitter: .none)
        #expect((0..<7).map { backoff.ceiling(forAttempt: $0) }
            == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1), .seconds(1)])
    }

    @Test func hugeAttemptsAndDelaysDoNotOverflow() {
        let backoff = Backoff(initialDelay: .seconds(86_400), maximumDelay: .seconds(86_400 * 365), jitter: .none)
        #expect(backoff.ceiling(forAttempt: 62) == .seconds(86_400 * 365))
        #expect(backoff.ceiling(forAttempt: 10_000) == .seconds(86_400 * 365))
        #expect(backoff.ceiling(forAttempt: -1) == .seconds(86_400), "a negative attempt counts as the first")
    }

    @Test func anInitialDelayAboveTheMaximumIsCapped() {
        let backoff = Backoff(initialDelay: .seconds(10), maximumDelay: .seconds(3), jitter: .none)
        #expect(backoff.delay(forAttempt: 0) == .seconds(3))
    }

    @Test func withoutJitterTheDelayIsTheCeilingAndRandomIsNotAsked() {
        let backoff = Backoff(initialDelay: .seconds(1), maximumDelay: .seconds(30), jitter: .none, random: {
            Issue.record("random asked without jitter")
            return 0
        })
        #expect((0..<7).map { backoff.delay(forAttempt: $0) } == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
    }

    @Test func equalJitterStaysBetweenHalfAndAllOfTheCeiling() {
        let low = Backoff(initialDelay: .seconds(2), maximumDelay: .seconds(8), jitter: .equal, random: { 0 })
        let middle = Backoff(initialDelay: .seconds(2), maximumDelay: .seconds(8), jitter: .equal, random: { 0.5 })
        let high = Backoff(initialDelay: .seconds(2), maximumDelay: .seconds(8), jitter: .equal, random: { 1 })
        #expect(low.delay(forAttempt: 1) == .seconds(2))
        #expect(middle.delay(forAttempt: 1) == .seconds(3))
        #expect(high.delay(forAttempt: 1) == .seconds(4))
    }

    @Test func fullJitterStaysBetweenZeroAndTheCeiling() {
        let low = Backoff(initialDelay: .seconds(2), maximumDelay: .seconds(8), jitter: .full, random: { 0 })
        let quarter = Backoff(initialDelay: .seconds(2), maximumDelay: .seconds(8), jitter: .full, random: { 0.25 })
        let high = Backoff(initialDelay: .seconds(2), maximumDelay: .seconds(8), jitter: .full, random: { 1 })
        #expect(low.delay(forAttempt: 2) == .zero)
        #expect(quarter.delay(forAttempt: 2) == .seconds(2))
        #expect(high.delay(forAttempt: 2) == .seconds(8))
    }

    @Test func randomNumbersOutsideTheUnitRangeAreClamped() {
        let below = Backoff(initialDelay: .seconds(4), maximumDelay: .seconds(4), jitter: .full, random: { -3 })
        let above = Backoff(initialDelay: .seconds(4), maximumDelay: .seconds(4), jitter: .full, random: { 7 })
        #expect(below.delay(forAttempt: 0) == .zero)
        #expect(above.delay(forAttempt: 0) == .seconds(4))
    }

    @Test func theDefaultRandomSourceSpreadsDelaysOverTheRange() {
        let backoff = Backoff(initialDelay: .seconds(1), maximumDelay: .seconds(1), jitter: .full)
        let delays = (0..<200).map { _ in backoff.delay(forAttempt: 0) }
        #expect(delays.allSatisfy { $0 >= .zero && $0 <= .seconds(1) })
        #expect(delays.contains { $0 < .milliseconds(250) } && delays.contains { $0 > .milliseconds(750) })
    }
}
