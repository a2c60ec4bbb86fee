/// Whether the gateway is ready for traffic, decided from evidence with an
/// injected clock (monotonic nanoseconds): no I/O, so tests drive it directly.
///
/// Ready while the upstream gave an HTTP answer (any status) within
/// `recentWindow` and no attempt failed since; otherwise by a probe result
/// younger than `probeValidity`; otherwise a probe is needed. Draining beats
/// everything.
struct ReadinessState: Sendable {
    /// What `/readyz` answers.
    enum Decision: Sendable, Equatable {
        case ready
        case notReady
        case draining
        /// No fresh evidence: ask the upstream.
        case probe
    }

    /// How long an upstream answer counts as evidence.
    var recentWindow: UInt64 = 5_000_000_000
    /// How long a probe result is reused.
    var probeValidity: UInt64 = 2_000_000_000
    /// When the upstream last answered; nil: never.
    var lastAnswer: UInt64?
    /// When an upstream attempt last failed without an answer; nil: never.
    var lastFailure: UInt64?
    /// The last probe's result and when it finished.
    var lastProbe: (ok: Bool, at: UInt64)?
    var draining = false

    func decision(now: UInt64) -> Decision {
        if draining { return .draining }
        if let answer = lastAnswer, now &- answer <= recentWindow, lastFailure.map({ $0 <= answer }) ?? true {
            return .ready
        }
        if let probe = lastProbe, now &- probe.at <= probeValidity {
            return probe.ok ? .ready : .notReady
        }
        return .probe
    }
}
