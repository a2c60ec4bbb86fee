import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time for the response cache, as a duration since some fixed
/// start; injectable so tests can move time without sleeping.
public struct CacheClock: Sendable {
    /// The current time.
    public let now: @Sendable () -> Duration

    public init(now: @escaping @Sendable () -> Duration) {
        self.now = now
    }

    /// Wall-clock time since the Unix epoch, for stores shared between
    /// processes (their clocks should be kept in sync, as NTP does).
    public static let wall = CacheClock {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// The process's monotonic clock (`ContinuousClock`).
    public static let continuous: CacheClock = {
        let start = ContinuousClock.now
        return CacheClock { ContinuousClock.now - start }
    }()
}

/// A clock that moves only when told to, for tests.
public final class ManualCacheClock: Sendable {
    private let time = Mutex(Duration.zero)

    public init() {}

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }

    /// A `CacheClock` reading this one.
    public var clock: CacheClock { CacheClock { self.time.withLock { $0 } } }
}
