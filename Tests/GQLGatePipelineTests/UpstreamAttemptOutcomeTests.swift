import GQLGatePipeline
import Testing

/// The strings metrics and spans print for upstream attempts are part of the
/// contract (docs/operations.md, `gqlgate_upstream_requests_total{outcome}`
/// and `gqlgate_retries_total{reason}`): each comes from one place.
@Suite struct UpstreamAttemptOutcomeTests {
    @Test func eachFailureKindHasTheLabelMetricsAndSpansPrint() {
        #expect(UpstreamFailure.Kind.allCases.map { "\($0): \($0.label)" } == [
            "notReached: unreachable", "timedOut: timeout", "failedAfterSend: connection_error", "answerTooLarge: too_large",
        ])
    }

    @Test func anAttemptsOutcomeIsLabelledAsTheContractSays() {
        #expect(UpstreamAttemptOutcome.answered(status: 200).label == "ok")
        #expect(UpstreamAttemptOutcome.answered(status: 399).label == "ok")
        #expect(UpstreamAttemptOutcome.answered(status: 400).label == "http_error")
        #expect(UpstreamAttemptOutcome.answered(status: 503).label == "http_error")
        #expect(UpstreamAttemptOutcome.failed(.failedAfterSend).label == "connection_error")
        #expect(UpstreamAttemptOutcome.cancelled.label == "cancelled")
        #expect(Set(UpstreamAttemptOutcome.labels)
            == ["ok", "http_error", "timeout", "unreachable", "connection_error", "cancelled", "too_large"])
        #expect(UpstreamAttemptOutcome.labels.count == 7)
    }

    @Test func aThrownErrorBecomesAnOutcomeThisOneWay() {
        for kind in UpstreamFailure.Kind.allCases {
            #expect(UpstreamAttemptOutcome(error: UpstreamFailure(kind: kind, message: "m")) == .failed(kind))
        }
        #expect(UpstreamAttemptOutcome(error: CancellationError()) == .cancelled)
        // The operation's deadline passed before the request left: nothing of the upstream's.
        #expect(UpstreamAttemptOutcome(error: GatewayError.upstreamTimeout("deadline")) == .cancelled)
    }

    @Test func whatAnOutcomeSaysOfTheUpstream() {
        #expect(UpstreamAttemptOutcome.answered(status: 503).upstreamAnswered == true)
        #expect(UpstreamAttemptOutcome.failed(.answerTooLarge).upstreamAnswered == true)
        for kind: UpstreamFailure.Kind in [.notReached, .timedOut, .failedAfterSend] {
            #expect(UpstreamAttemptOutcome.failed(kind).upstreamAnswered == false)
        }
        #expect(UpstreamAttemptOutcome.cancelled.upstreamAnswered == nil)
    }

    @Test func retryReasonsAreLabelledWithTheFailureKinds() {
        #expect(RetryReason.status(503).label == "status")
        #expect(RetryReason.failure(.notReached).label == "unreachable")
        #expect(RetryReason.failure(.timedOut).label == "timeout")
        #expect(RetryReason.failure(.failedAfterSend).label == "connection_error")
        #expect(RetryReason.unauthorized.label == "unauthorized")
        #expect(Set(RetryReason.labels) == ["status", "timeout", "unreachable", "connection_error", "unauthorized"])
        #expect(RetryReason.labels.count == 5)
    }
}
