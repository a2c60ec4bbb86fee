
/// How many log lines of one kind may be written: at most `lines` in any
/// `window` (fixed windows), so a flood of the same event cannot fill the log.
/// The lines left out are counted and reported with the next one let through.
package final class LineBudget: Sendable {
    private struct State {
        var windowStart: UInt64
        var used = 0
        var dropped = 0
    }

    private let lines: Int
    private let window: UInt64
    private let clock: GatewayClock
    private let state: Lock<State>

    package init(lines: Int, window: Duration, clock: GatewayClock = .system) {
        self.lines = lines
        self.window = window.nanoseconds
        self.clock = clock
        state = Lock(State(windowStart: clock.monotonicNanoseconds()))
    }

    /// nil when this line must be left out; else the lines left out since the
    /// last one let through.
    package func take() -> Int? {
        let now = clock.monotonicNanoseconds()
        return state.withLock { state -> Int? in
            if now &- state.windowStart >= window {
                state.windowStart = now
                state.used = 0
            }
            guard state.used < lines else {
                state.dropped += 1
                return nil
            }
            state.used += 1
            defer { state.dropped = 0 }
            return state.dropped
        }
    }
}
