import GQLGateCore

/// `GatewayClock.system`'s monotonic reading, for code that is handed no
/// clock; code that tests move in time takes a `GatewayClock` instead.
public enum MonotonicClock {
    /// The current monotonic time in nanoseconds.
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        GatewayClock.system.monotonicNanoseconds()
    }
}
