@_spi(GQLGateInternals) package import GQLGateCore

/// The time a response cache stamps and ages its answers with: a
/// `GatewayClock`'s monotonic reading for a store in this process, or its
/// wall time for a store shared between processes, whose clocks should then
/// be kept in sync (as NTP does). Tests pass a `ManualClock`'s clock.
package struct CacheClock: Sendable {
    private let clock: GatewayClock
    private let readsWallTime: Bool

    /// Ages on `clock`'s monotonic reading, as a duration since some fixed start.
    package static func monotonic(_ clock: GatewayClock) -> CacheClock {
        CacheClock(clock: clock, readsWallTime: false)
    }

    /// Ages on `clock`'s wall time, since the Unix epoch.
    package static func wall(_ clock: GatewayClock) -> CacheClock {
        CacheClock(clock: clock, readsWallTime: true)
    }

    /// The system's monotonic clock.
    package static var monotonic: CacheClock { .monotonic(.system) }

    /// The system's wall clock.
    package static var wall: CacheClock { .wall(.system) }

    /// The current time.
    @inline(__always)
    package func now() -> Duration {
        readsWallTime ? clock.wallTime() : .nanoseconds(Int64(truncatingIfNeeded: clock.monotonicNanoseconds()))
    }
}
