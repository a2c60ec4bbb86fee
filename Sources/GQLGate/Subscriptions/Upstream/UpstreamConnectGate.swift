@_spi(GQLGateInternals) import GQLGateCore

/// What an upstream WebSocket asks before it connects or reconnects: how
/// long to wait first. The gateway points it at the current pipeline's
/// circuit breaker (the open time left), so that a failing upstream is not
/// hammered by reconnects while HTTP requests fail fast.
package final class UpstreamConnectGate: Sendable {
    private let rule = Lock<(@Sendable () -> Duration?)?>(nil)

    package init() {}

    /// Sets the rule: the wait before connecting now, nil for none (nil rule: never wait).
    package func set(_ rule: (@Sendable () -> Duration?)?) {
        self.rule.withLock { $0 = rule }
    }

    /// The wait before connecting now; nil to connect at once.
    func delayBeforeConnecting() -> Duration? {
        rule.withLock { $0 }?()
    }
}
