/// Delays between reconnection attempts: a `Backoff` with equal jitter, so
/// attempt n waits between half and all of `min(maximumDelay, initialDelay·2ⁿ)`.
/// A connection that stayed up for `stableAfter` starts the sequence again.
package struct ReconnectBackoff: Sendable {
    /// The schedule the delays are drawn from.
    package var backoff: Backoff
    /// How long a connection must have been up for the next loss to count as the first.
    package var stableAfter: Duration
    /// Failed attempts since the last stable connection.
    package private(set) var attempts = 0

    /// - Parameters:
    ///   - random: a source of numbers in `0..<1` (injected so tests can pin the jitter).
    package init(initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30),
                stableAfter: Duration = .seconds(30), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        backoff = Backoff(initialDelay: initialDelay, maximumDelay: maximumDelay, jitter: .equal, random: random)
        self.stableAfter = stableAfter
    }

    /// The delay before the next attempt, after a connection that was up for
    /// `uptime` (nil: it never came up); counts the attempt.
    package mutating func nextDelay(afterUptime uptime: Duration?) -> Duration {
        if let uptime, uptime >= stableAfter { attempts = 0 }
        defer { attempts += 1 }
        return backoff.delay(forAttempt: attempts)
    }
}
