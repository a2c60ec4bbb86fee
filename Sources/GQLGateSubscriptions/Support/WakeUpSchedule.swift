@_spi(GQLGateInternals) import GQLGateCore

/// Turns a state machine's earliest deadline into `wakeUp` requests: one is
/// asked for when that deadline changes, and again after every timer tick
/// (so a tick that came early is followed by a new request, not by silence).
struct WakeUpSchedule: Sendable {
    private var requested: MonotonicInstant?

    /// The requested timer fired (or a tick arrived): nothing is armed any more.
    mutating func timerFired() {
        requested = nil
    }

    /// The instant to request, if `deadline` differs from the one armed.
    mutating func request(_ deadline: MonotonicInstant?) -> MonotonicInstant? {
        guard let deadline, deadline != requested else { return nil }
        requested = deadline
        return deadline
    }
}
