/// `Duration` in the whole units that clocks, loops and libcurl take.
extension Duration {
    /// The duration in whole nanoseconds (negative durations count as 0).
    package var nanoseconds: UInt64 {
        // From the attoseconds in one division: `components` costs four times as much.
        let attoseconds = self.attoseconds
        guard attoseconds > 0 else { return 0 }
        return UInt64(truncatingIfNeeded: attoseconds / 1_000_000_000)
    }

    /// The duration in whole milliseconds, rounded up so short waits never become 0.
    package var milliseconds: Int {
        Int((nanoseconds + 999_999) / 1_000_000)
    }
}
