/// Delays between reconnection attempts: exponential with equal jitter, so
/// attempt n waits between half and all of `min(maximumDelay, initialDelay·2ⁿ)`.
/// A connection that stayed up for `stableAfter` starts the sequence again.
public struct ReconnectBackoff: Sendable {
    /// The ceiling of the first delay.
    public var initialDelay: Duration
    /// The largest ceiling.
    public var maximumDelay: Duration
    /// How long a connection must have been up for the next loss to count as the first.
    public var stableAfter: Duration
    /// Failed attempts since the last stable connection.
    public private(set) var attempts = 0
    private let random: @Sendable () -> Double

    /// - Parameters:
    ///   - random: a source of numbers in `0..<1` (injected so tests can pin the jitter).
    public init(initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30),
                stableAfter: Duration = .seconds(30), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.stableAfter = stableAfter
        self.random = random
    }

    /// The ceiling for attempt `attempt` (0-based): `min(maximumDelay, initialDelay·2^attempt)`.
    public func ceiling(forAttempt attempt: Int) -> Duration {
        var ceiling = initialDelay
        for _ in 0..<min(attempt, 62) {
            guard ceiling < maximumDelay else { break }
            ceiling *= 2
        }
        return min(ceiling, maximumDelay)
    }

    /// The delay before the next attempt, after a connection that was up for
    /// `uptime` (nil: it never came up); counts the attempt.
    public mutating func nextDelay(afterUptime uptime: Duration?) -> Duration {
        if let uptime, uptime >= stableAfter { attempts = 0 }
        let ceiling = ceiling(forAttempt: attempts)
        attempts += 1
        let unit = min(max(random(), 0), 1)
        return ceiling / 2 + (ceiling / 2) * unit
    }
}
