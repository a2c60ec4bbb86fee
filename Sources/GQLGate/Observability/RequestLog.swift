@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateLogging
import GQLGateMetrics
@_spi(GQLGateInternals) import GQLGatePipeline
import Logging

/// Records every answered client request: `gqlgate_requests_total` and
/// `gqlgate_request_duration_seconds`, and one access log line at `info`
/// with the request id, operation kind and name, persisted document id, status, duration, the
/// client certificate's subject when the server asks for one, and the
/// cache status, upstream attempts and upstream status where known (fields
/// that are not known are left out). Headers, variables and bodies are never
/// logged. The gateway's recorder (`GatewayRecorder`) records what
/// the pipeline answers; the endpoint records what it answers itself.
struct RequestLog: Sendable {
    /// Where access lines go: gqlgate's own writer (the fast path), or any swift-log logger.
    enum Sink: Sendable {
        case writer(AccessLogWriter)
        case logger(Logger)
    }

    let metrics: GatewayMetrics
    let sink: Sink

    /// Records an answer with `status` to the request `requestID` received at
    /// `startedAt` (monotonic nanoseconds), with the facts its operation
    /// gathered or, for a request the pipeline did not see, the subject of its
    /// client certificate. The facts are copied out of their record only when a line is written;
    /// the metrics read the operation's kind alone.
    func record(status: Int, requestID: String?, startedAt: UInt64, facts record: OperationRecord?, clientCertificate: String? = nil) {
        let elapsed = GatewayClock.system.monotonicNanoseconds() &- startedAt
        switch sink {
        case .writer(let writer) where writer.isEnabled:
            let facts = record?.snapshot
            metrics.requestFinished(kind: facts?.kind, status: status, duration: .nanoseconds(elapsed))
            writer.write(Self.accessLine(
                status: status, requestID: requestID, elapsedNanoseconds: elapsed, facts: facts, clientCertificate: clientCertificate))
        case .logger(let logger) where logger.logLevel <= .info:
            let facts = record?.snapshot
            metrics.requestFinished(kind: facts?.kind, status: status, duration: .nanoseconds(elapsed))
            logger.info("\(AccessLine.message)", metadata: Self.accessLine(
                status: status, requestID: requestID, elapsedNanoseconds: elapsed, facts: facts, clientCertificate: clientCertificate).metadata)
        case .writer, .logger:
            metrics.requestFinished(kind: record?.kind, status: status, duration: .nanoseconds(elapsed))
        }
    }

    /// The access line's fields.
    static func accessLine(status: Int, requestID: String?, elapsedNanoseconds: UInt64, facts: OperationRecord.Snapshot?,
                           clientCertificate: String? = nil) -> AccessLine {
        var line = AccessLine(status: status, durationMilliseconds: Double(elapsedNanoseconds / 1_000) / 1_000)
        line.requestID = requestID
        line.clientCertificate = clientCertificate
        if let facts {
            line.operation = facts.kind?.rawValue
            line.operationName = facts.operationName
            line.cache = facts.cache?.rawValue
            line.persistedID = facts.persistedID
            if facts.attempts > 0 { line.attempts = facts.attempts }
            line.upstreamStatus = facts.upstreamStatus
            line.shed = facts.shed?.rawValue
            line.cost = facts.cost.map { JSONValue(cost: $0).serialized() }
            if let span = facts.span {
                line.traceID = span.traceID.hex
                line.spanID = span.spanIDHex
            }
        }
        return line
    }
}
