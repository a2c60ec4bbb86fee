import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
import GQLGateMetrics
import GQLGatePipeline
import GQLGateTransports

/// What the gateway learns from each upstream attempt: counted by outcome
/// with its duration, and taken as readiness evidence.
struct UpstreamAttemptMetrics: UpstreamAttemptObserver {
    let metrics: GatewayMetrics
    let readiness: Readiness

    func attemptStarted() {
        metrics.upstreamAttemptStarted()
    }

    func attemptEnded(_ outcome: UpstreamAttemptOutcome, startedAt: UInt64) {
        metrics.upstreamAttemptEnded()
        let finished = GatewayClock.system.monotonicNanoseconds()
        metrics.upstreamFinished(outcome: outcome, duration: .nanoseconds(finished &- startedAt))
        switch outcome.upstreamAnswered {
        case true?: readiness.upstreamAnswered(at: finished)
        case false?: readiness.upstreamFailed(at: finished)
        case nil: break
        }
    }
}
