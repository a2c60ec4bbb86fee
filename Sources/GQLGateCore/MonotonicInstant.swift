/// A point in time on a `GatewayClock`'s monotonic reading, for the state
/// machines that are handed the time: deadlines are instants, waits are the
/// `Duration`s between them. Arithmetic saturates instead of trapping.
@_spi(GQLGateInternals) public struct MonotonicInstant: Comparable, Hashable, Sendable {
    /// Nanoseconds on the clock's monotonic reading.
    public var nanoseconds: UInt64

    /// The instant `nanoseconds` on the monotonic reading.
    @inlinable
    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// The system clock's instant now.
    @inlinable
    public static var now: MonotonicInstant { GatewayClock.system.now() }

    @inlinable
    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// `duration` later (earlier, for a negative one).
    @inlinable
    public static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        let delta = signedNanoseconds(duration)
        if delta >= 0 {
            let (sum, overflow) = instant.nanoseconds.addingReportingOverflow(UInt64(delta))
            return MonotonicInstant(nanoseconds: overflow ? .max : sum)
        }
        let (difference, overflow) = instant.nanoseconds.subtractingReportingOverflow(delta.magnitude)
        return MonotonicInstant(nanoseconds: overflow ? 0 : difference)
    }

    /// Moves `instant` by `duration`.
    @inlinable
    public static func += (instant: inout MonotonicInstant, duration: Duration) {
        instant = instant + duration
    }

    /// `duration` earlier.
    @inlinable
    public static func - (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        instant + (.zero - duration)
    }

    /// How long from `rhs` to `lhs` (negative when `lhs` is earlier).
    @inlinable
    public static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Duration {
        lhs.nanoseconds >= rhs.nanoseconds
            ? .nanoseconds(Int64(clamping: lhs.nanoseconds - rhs.nanoseconds))
            : .zero - .nanoseconds(Int64(clamping: rhs.nanoseconds - lhs.nanoseconds))
    }

    /// `duration` in whole nanoseconds, saturated to `Int64`'s range.
    @usableFromInline
    static func signedNanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow || carry ? (seconds < 0 ? .min : .max) : total
    }
}

@_spi(GQLGateInternals) extension GatewayClock {
    /// The monotonic reading as an instant.
    @inlinable
    public func now() -> MonotonicInstant {
        MonotonicInstant(nanoseconds: monotonicNanoseconds())
    }
}
