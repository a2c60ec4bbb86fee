@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateTracing

/// How an operation on a client WebSocket ended.
enum WebSocketOperationEnd: String, Sendable {
    /// Its results ended (the upstream completed it, or its one result came).
    case completed
    /// It ended with GraphQL errors.
    case error
    /// The client stopped it (`complete`, legacy `stop`), or gqlgate did, closing the connection for a protocol error.
    case stopped
    /// The connection closed, or gqlgate is shutting down.
    case connectionClosed = "connection_closed"
}

/// One operation on a client WebSocket, as the recorder follows it from its
/// `subscribe` (or legacy `start`) to its end: the record its stages state
/// facts in, and its server span while tracing samples it.
struct WebSocketOperationRecord: Sendable {
    /// The facts the operation's stages state.
    let facts: OperationRecord
    /// Its span and its parent's id, when tracing sampled it.
    fileprivate let span: (context: SpanContext, parentSpanID: UInt64)?
    /// The span's attributes known at the start: the connection's, and the operation's request id.
    fileprivate let attributes: [SpanAttribute]
    fileprivate let recorder: GatewayRecorder

    /// The operation ended so; `errors` are those it ended with (`end` is `.error`).
    func ended(_ end: WebSocketOperationEnd, errors: [JSONValue] = []) {
        recorder.webSocketOperationEnded(self, end, errors: errors)
    }
}

extension GatewayRecorder {
    /// An operation begins on a client WebSocket: its record, and its server
    /// span, started now when tracing samples it (the trace context of the
    /// operation's `extensions`, else the connection's, `WebSocketTraceOrigin`).
    /// Operations on WebSockets have no access line: the upgrade request has
    /// its own, and an operation has no HTTP status.
    func webSocketOperationBegins(_ request: GraphQLRequest, requestID: String, origin: WebSocketTraceOrigin) -> WebSocketOperationRecord {
        let facts = OperationRecord(startedAt: GatewayClock.system.monotonicNanoseconds(), recorder: self)
        let parent = origin.context(for: request)
        guard let spans, let (context, parentSpanID) = spans.tracer.startServerSpan(traceparent: parent.traceparent, tracestate: parent.tracestate)
        else {
            return WebSocketOperationRecord(facts: facts, span: nil, attributes: [], recorder: self)
        }
        facts.spanStarted(context)
        return WebSocketOperationRecord(
            facts: facts, span: (context, parentSpanID), attributes: origin.attributes + [SpanAttribute("gqlgate.request_id", requestID)],
            recorder: self)
    }

    /// Ends the operation's span, when it has one.
    fileprivate func webSocketOperationEnded(_ operation: WebSocketOperationRecord, _ end: WebSocketOperationEnd, errors: [JSONValue]) {
        guard let spans, let (context, parentSpanID) = operation.span else { return }
        let facts = operation.facts.snapshot
        var closing = [SpanAttribute("gqlgate.websocket.end", end.rawValue)]
        if end == .error {
            let code = if case .string(let code)? = errors.first?["extensions"]?["code"] { code } else { "graphql_error" }
            closing.append(SpanAttribute("error.type", code))
        }
        spans.finish(context, parent: parentSpanID, name: Self.spanName(facts), facts: facts, startedAt: operation.facts.startedAt,
                     attributes: operation.attributes, closing: closing, failed: end == .error)
    }

    /// OpenTelemetry's GraphQL span name: `{type} {name}`, `{type}`, or `GraphQL Operation` before the document was read.
    private static func spanName(_ facts: OperationRecord.Snapshot) -> String {
        guard let kind = facts.kind else { return "GraphQL Operation" }
        guard let name = facts.operationName else { return kind.rawValue }
        return kind.rawValue + " " + name
    }
}
