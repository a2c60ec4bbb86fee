#if canImport(Glibc)
import Glibc
#endif

/// Nanoseconds on `CLOCK_MONOTONIC`: cheap, never jumps, good for deadlines.
public enum MonotonicClock {
    /// The current monotonic time in nanoseconds.
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
