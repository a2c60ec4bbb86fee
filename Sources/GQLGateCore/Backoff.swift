/// How long to wait before attempt `n` (0-based) of something that keeps
/// failing: up to `min(maximumDelay, initialDelay·2ⁿ)`, spread by `jitter`.
/// The one schedule for retries to the upstream (full jitter), reconnects to
/// Redis and to upstream WebSockets (equal jitter, through
/// `ReconnectBackoff`) and OAuth2 token requests (no jitter).
package struct Backoff: Sendable {
    /// How the delay is drawn below its ceiling.
    package enum Jitter: Sendable, Equatable {
        /// Exactly the ceiling.
        case none
        /// Between half and all of the ceiling.
        case equal
        /// Between zero and the ceiling.
        case full
    }

    /// The ceiling of the first delay.
    package var initialDelay: Duration
    /// The largest ceiling.
    package var maximumDelay: Duration
    /// How the delay is drawn below its ceiling.
    package var jitter: Jitter
    private let random: @Sendable () -> Double

    /// - Parameters:
    ///   - random: a source of numbers in `0...1` (injected so tests can pin the jitter); unused without jitter.
    package init(initialDelay: Duration, maximumDelay: Duration, jitter: Jitter,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.random = random
    }

    /// The ceiling for attempt `attempt` (0-based): `min(maximumDelay, initialDelay·2^attempt)`,
    /// without overflow however large `attempt` is.
    package func ceiling(forAttempt attempt: Int) -> Duration {
        let cap = maximumDelay.nanoseconds
        let exponent = UInt64(min(max(attempt, 0), 62))
        let (scaled, overflow) = initialDelay.nanoseconds.multipliedReportingOverflow(by: 1 << exponent)
        return .nanoseconds(Int64(clamping: overflow ? cap : min(cap, scaled)))
    }

    /// The delay before attempt `attempt` (0-based), drawn by `jitter`.
    package func delay(forAttempt attempt: Int) -> Duration {
        let ceiling = ceiling(forAttempt: attempt)
        switch jitter {
        case .none: return ceiling
        case .equal: return ceiling / 2 + (ceiling / 2) * unit()
        case .full: return ceiling * unit()
        }
    }

    /// A number from `random`, kept within `0...1`.
    private func unit() -> Double {
        min(max(random(), 0), 1)
    }
}
