import GQLGateEventLoop
import GQLGateHTTPServer
import GQLGateMetrics
import GQLGatePipeline
import Logging

/// Records every answered client request: `gqlgate_requests_total` and
/// `gqlgate_request_duration_seconds`, and one access log line at `info`
/// with the request id, operation kind and name, status, duration, and the
/// cache status, upstream attempts and upstream status where known (fields
/// that are not known are left out). Headers, variables and bodies are never
/// logged.
struct RequestLog: Sendable {
    let metrics: GatewayMetrics
    let logger: Logger

    /// Records `response`, the answer to a request received at `startedAt`
    /// (monotonic nanoseconds), with what the pipeline noted in `trace`.
    func record(_ response: ServerResponse, startedAt: UInt64, trace: RequestTrace.Snapshot?) {
        let elapsed = MonotonicClock.nanoseconds() &- startedAt
        metrics.requestFinished(kind: trace?.kind, status: response.status, duration: .nanoseconds(elapsed))
        logger.info("request", metadata: Self.accessFields(response, elapsedNanoseconds: elapsed, trace: trace))
    }

    /// The access line's fields.
    static func accessFields(_ response: ServerResponse, elapsedNanoseconds: UInt64, trace: RequestTrace.Snapshot?) -> Logger.Metadata {
        var fields: Logger.Metadata = [
            "status": .stringConvertible(response.status),
            "duration_ms": .stringConvertible(Double(elapsedNanoseconds / 1_000) / 1_000),
        ]
        if let requestID = response.headers["x-request-id"] { fields["request_id"] = .string(requestID) }
        if let cache = response.headers["x-cache"] { fields["cache"] = .string(cache) }
        if let trace {
            if let kind = trace.kind { fields["operation"] = .string(kind.rawValue) }
            if let name = trace.operationName { fields["operation_name"] = .string(name) }
            if trace.attempts > 0 { fields["attempts"] = .stringConvertible(trace.attempts) }
            if let status = trace.upstreamStatus { fields["upstream_status"] = .stringConvertible(status) }
        }
        return fields
    }
}
