import GQLGateEventLoop
import GQLGateExchanges
import GQLGateHTTPClient
import GQLGateMetrics
import GQLGatePipeline

/// `HTTPTransport` with its attempts measured: each send is one upstream
/// attempt, counted by outcome with its duration, noted in the request's
/// `RequestTrace`, and taken as readiness evidence.
struct MeasuredHTTPTransport: Transport {
    let base: HTTPTransport
    let metrics: GatewayMetrics
    let readiness: Readiness

    func send(_ operation: Operation) async throws -> ResultStream {
        let trace = RequestTrace.current
        trace?.upstreamAttemptStarted()
        let started = MonotonicClock.nanoseconds()
        do {
            guard let answer = try await base.send(operation).first() else {
                throw GatewayError.upstreamUnavailable("The upstream sent no answer.")
            }
            let finished = MonotonicClock.nanoseconds()
            metrics.upstreamFinished(outcome: UpstreamOutcome(status: answer.status), duration: .nanoseconds(finished &- started))
            readiness.upstreamAnswered(at: finished)
            trace?.upstreamAnswered(status: answer.status)
            return .single(answer)
        } catch {
            let finished = MonotonicClock.nanoseconds()
            let outcome = UpstreamOutcome(failure: error)
            metrics.upstreamFinished(outcome: outcome, duration: .nanoseconds(finished &- started))
            if outcome != .cancelled { readiness.upstreamFailed(at: finished) }
            throw error
        }
    }
}

extension UpstreamOutcome {
    /// The outcome of an attempt that ended with `failure` instead of an answer.
    init(failure: any Error) {
        switch failure {
        case let error as HTTPClientError:
            switch error.kind {
            case .notReached: self = .unreachable
            case .timedOut: self = .timeout
            case .failedAfterSend: self = .connectionError
            case .cancelled: self = .cancelled
            }
        case is CancellationError:
            self = .cancelled
        default:
            self = .connectionError
        }
    }
}
