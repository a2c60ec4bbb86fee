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

extension Duration {
    /// The duration in whole nanoseconds (negative durations count as 0).
    public var nanoseconds: UInt64 {
        // From the attoseconds in one division: `components` costs four times as much.
        let attoseconds = self.attoseconds
        guard attoseconds > 0 else { return 0 }
        return UInt64(truncatingIfNeeded: attoseconds / 1_000_000_000)
    }

    /// The duration in whole milliseconds, rounded up so short waits never become 0.
    public var milliseconds: Int {
        Int((nanoseconds + 999_999) / 1_000_000)
    }
}
