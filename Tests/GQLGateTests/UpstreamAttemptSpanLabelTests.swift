@testable import GQLGate
import GQLGatePipeline
import Testing

/// An attempt's span names an answer its own way (`answered`, `error_status`),
/// and a failure as metrics do.
@Suite struct UpstreamAttemptSpanLabelTests {
    @Test func answersFailuresAndCancellations() {
        let outcomes: [UpstreamAttemptOutcome] = [
            .answered(status: 200), .answered(status: 404), .answered(status: 503), .failed(.notReached), .failed(.timedOut),
            .failed(.failedAfterSend), .failed(.answerTooLarge), .cancelled,
        ]
        #expect(outcomes.map { "\($0.spanLabel) \($0.spanErrorType ?? "-")" } == [
            "answered -", "answered -", "error_status 503", "unreachable unreachable", "timeout timeout",
            "connection_error connection_error", "too_large too_large", "cancelled -",
        ])
    }
}
