#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

/// The time as gateway code reads it: monotonic nanoseconds for deadlines and
/// ages within the process, wall time for what other processes and people
/// read (answers in a shared cache, `Retry-After` dates, log lines).
/// `.system` reads the kernel's clocks; a `ManualClock`'s `clock` moves only
/// when a test moves it. Callers take one as a value: a concrete struct, so
/// reading `.system` is a direct call, with no closure or existential between.
@_spi(GQLGateInternals) public struct GatewayClock: Sendable {
    @usableFromInline let manual: ManualClock?

    /// The kernel's clocks: `CLOCK_MONOTONIC` and `CLOCK_REALTIME`. (Made
    /// where it is read, so that no global's lazy initialisation is checked.)
    @inlinable
    public static var system: GatewayClock { GatewayClock(manual: nil) }

    @usableFromInline
    init(manual: ManualClock?) {
        self.manual = manual
    }

    /// Nanoseconds on a clock that never jumps (`CLOCK_MONOTONIC`): cheap, good for deadlines.
    @inlinable
    public func monotonicNanoseconds() -> UInt64 {
        if let manual { return manual.monotonicNanoseconds }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// Time since the Unix epoch (`CLOCK_REALTIME`): may jump when the system clock is set.
    @inlinable
    public func wallTime() -> Duration {
        if let manual { return manual.wallTime }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }
}

/// A clock for tests: both readings stand still until `advance(by:)` moves them together.
@_spi(GQLGateInternals) public final class ManualClock: Sendable {
    private let readings: Lock<(monotonic: UInt64, wall: Duration)>

    /// - Parameters:
    ///   - monotonicNanoseconds: the first monotonic reading.
    ///   - wallTime: the first wall-clock reading, since the Unix epoch.
    package init(monotonicNanoseconds: UInt64 = 1_000_000_000_000, wallTime: Duration = .seconds(1_750_000_000)) {
        readings = Lock((monotonicNanoseconds, wallTime))
    }

    /// The monotonic reading now.
    public var monotonicNanoseconds: UInt64 { readings.withLock { $0.monotonic } }

    /// The wall-clock reading now.
    public var wallTime: Duration { readings.withLock { $0.wall } }

    /// Moves both readings forward by `duration`.
    package func advance(by duration: Duration) {
        readings.withLock {
            $0.monotonic += duration.nanoseconds
            $0.wall += duration
        }
    }

    /// A `GatewayClock` reading this one.
    package var clock: GatewayClock { GatewayClock(manual: self) }
}
