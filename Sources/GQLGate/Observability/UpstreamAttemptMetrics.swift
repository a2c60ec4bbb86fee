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

    func attemptEnded(_ outcome: Result<Int, any Error>, startedAt: UInt64) {
        metrics.upstreamAttemptEnded()
        let finished = GatewayClock.system.monotonicNanoseconds()
        let duration = Duration.nanoseconds(finished &- startedAt)
        switch outcome {
        case .success(let status):
            metrics.upstreamFinished(outcome: UpstreamOutcome(status: status), duration: duration)
            readiness.upstreamAnswered(at: finished)
        case .failure(let error):
            let failure = UpstreamOutcome(failure: error)
            metrics.upstreamFinished(outcome: failure, duration: duration)
            switch failure {
            case .cancelled: break
            case .tooLarge: readiness.upstreamAnswered(at: finished)  // it did answer
            default: readiness.upstreamFailed(at: finished)
            }
        }
    }
}

extension UpstreamOutcome {
    /// The outcome of an attempt that ended with `failure` instead of an answer.
    init(failure: any Error) {
        switch failure {
        case let error as UpstreamFailure:
            switch error.kind {
            case .notReached: self = .unreachable
            case .timedOut: self = .timeout
            case .failedAfterSend: self = .connectionError
            case .answerTooLarge: self = .tooLarge
            }
        case is CancellationError:
            self = .cancelled
        default:
            self = .connectionError
        }
    }
}
