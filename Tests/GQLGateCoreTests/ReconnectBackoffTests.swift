@_spi(GQLGateInternals) import GQLGateCore
import Testing

/// Hands out the given numbers in turn, as the backoff's random source.
private final class ScriptedRandom: Sendable {
    private let values: Lock<[Double]>

    init(_ values: [Double]) {
        self.values = Lock(values)
    }

    func next() -> Double {
        values.withLock { $0.removeFirst() }
    }
}

@Suite struct ReconnectBackoffTests {
    @Test func ceilingsDoubleUpToTheMaximum() {
        let backoff = ReconnectBackoff(initialDelay: .milliseconds(100), maximumDelay: .seconds(1)).backoff
        #expect(backoff.jitter == .equal)
        #expect((0..<7).map { backoff.ceiling(forAttempt: $0) }
            == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1), .seconds(1)])
        #expect(backoff.ceiling(forAttempt: 10_000) == .seconds(1))
    }

    @Test func delaysStayBetweenHalfAndAllOfTheCeiling() {
        var low = ReconnectBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(4), random: { 0 })
        var high = ReconnectBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(4), random: { 0.999_999 })
        let lows = (0..<4).map { _ in low.nextDelay(afterUptime: nil) }
        let highs = (0..<4).map { _ in high.nextDelay(afterUptime: nil) }
        #expect(lows == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(2)])
        for (delay, ceiling) in zip(highs, [Duration.seconds(1), .seconds(2), .seconds(4), .seconds(4)]) {
            #expect(delay < ceiling && delay > ceiling - .milliseconds(1))
        }
    }

    @Test func jitterComesFromTheInjectedSource() {
        let random = ScriptedRandom([0.5, 0.25])
        var backoff = ReconnectBackoff(initialDelay: .seconds(4), maximumDelay: .seconds(60), random: { random.next() })
        #expect(backoff.nextDelay(afterUptime: nil) == .seconds(3))
        #expect(backoff.nextDelay(afterUptime: nil) == .seconds(5))
    }

    @Test func aStableConnectionStartsOver() {
        var backoff = ReconnectBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(60), stableAfter: .seconds(10), random: { 0 })
        _ = backoff.nextDelay(afterUptime: nil)
        _ = backoff.nextDelay(afterUptime: nil)
        #expect(backoff.attempts == 2)
        #expect(backoff.nextDelay(afterUptime: .seconds(9)) == .seconds(2))
        #expect(backoff.nextDelay(afterUptime: .seconds(10)) == .milliseconds(500))
        #expect(backoff.attempts == 1)
    }
}
