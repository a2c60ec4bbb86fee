import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import GQLGateTracing

/// The trace context and facts a client WebSocket gives the spans of its
/// operations: the upgrade request's `traceparent`/`tracestate`, replaced by
/// those of the `connection_init` payload (browsers cannot set header fields
/// on an upgrade); an operation's own, in its `extensions`, come first.
struct WebSocketTraceOrigin: Sendable {
    private(set) var traceparent: String?
    private(set) var tracestate: String?
    /// The connection's attributes, the same for each of its operations.
    private(set) var attributes: [SpanAttribute]

    init(upgradeHeaders: HTTPHeaders, path: String, subprotocol: String, clientAddress: String?) {
        traceparent = upgradeHeaders["traceparent"]
        tracestate = upgradeHeaders["tracestate"]
        var attributes = [
            SpanAttribute("url.path", path),
            SpanAttribute("network.protocol.name", "websocket"),
            SpanAttribute("gqlgate.websocket.subprotocol", subprotocol),
        ]
        if let clientAddress {
            attributes.append(SpanAttribute("client.address", clientAddress))
            attributes.append(SpanAttribute("network.peer.address", clientAddress))
        }
        self.attributes = attributes
    }

    /// `traceparent` (and `tracestate`) in the `connection_init` payload, at
    /// the top level or under `headers` as the client key may be, become the connection's.
    mutating func initialised(payload: JSONValue?) {
        let fields = InitPayloadCredentials.headers(in: payload, named: ["traceparent", "tracestate"])
        guard let traceparent = fields["traceparent"] else { return }
        self.traceparent = traceparent
        tracestate = fields["tracestate"]
    }

    /// The client key the connection was let in with (in the upgrade request or `connection_init`), named by its id.
    mutating func authenticated(key: String) {
        attributes.removeAll { $0.key == "gqlgate.client.key_id" }
        attributes.append(SpanAttribute("gqlgate.client.key_id", ClientKeyID.of(key)))
    }

    /// The trace context for `request`: its `extensions.traceparent`, else the connection's.
    func context(for request: GraphQLRequest) -> (traceparent: String?, tracestate: String?) {
        if case .string(let own)? = request.extensions?["traceparent"] {
            let state = if case .string(let text)? = request.extensions?["tracestate"] { text } else { String?.none }
            return (own, state)
        }
        return (traceparent, tracestate)
    }
}

/// The server span of one operation on a client WebSocket (`subscribe`, or
/// legacy `start`), from the message to the operation's end: its results'
/// end, an error, the client's stop, or the connection's close. Its request
/// trace goes with the operation, so that the stages note what they did
/// and upstream attempts become its children, as for a request over HTTP.
/// Exists only for sampled operations.
struct WebSocketOperationSpan: Sendable {
    /// How the operation ended.
    enum End: String, Sendable {
        /// Its results ended (the upstream completed it, or its one result came).
        case completed
        /// It ended with GraphQL errors.
        case error
        /// The client stopped it (`complete`, legacy `stop`), or gqlgate did, closing the connection for a protocol error.
        case stopped
        /// The connection closed, or gqlgate is shutting down.
        case connectionClosed = "connection_closed"
    }

    /// The facts the operation's stages state; its span is this one.
    let record: OperationRecord
    private let tracer: Tracer
    private let context: SpanContext
    private let parentSpanID: UInt64
    private let attributes: [SpanAttribute]

    /// A span for `request`, or nil when its trace is not sampled.
    init?(tracer: Tracer, request: GraphQLRequest, requestID: String, origin: WebSocketTraceOrigin, recorder: any FactRecorder) {
        let parent = origin.context(for: request)
        guard let (context, parentSpanID) = tracer.startServerSpan(traceparent: parent.traceparent, tracestate: parent.tracestate) else {
            return nil
        }
        record = OperationRecord(startedAt: GatewayClock.system.monotonicNanoseconds(), recorder: recorder)
        record.spanStarted(context)
        self.tracer = tracer
        self.context = context
        self.parentSpanID = parentSpanID
        attributes = origin.attributes + [SpanAttribute("gqlgate.request_id", requestID)]
    }

    /// Ends the span; `errors` are those the operation ended with (`end` is `.error`).
    func end(_ end: End, errors: [JSONValue] = []) {
        let facts = record.snapshot
        var attributes = attributes
        facts.addSpanAttributes(to: &attributes)
        attributes.append(SpanAttribute("gqlgate.websocket.end", end.rawValue))
        if end == .error {
            let code = if case .string(let code)? = errors.first?["extensions"]?["code"] { code } else { "graphql_error" }
            attributes.append(SpanAttribute("error.type", code))
        }
        tracer.finishWaits(of: facts, under: context)
        tracer.finished(SpanRecord(
            context: context, parentSpanID: parentSpanID, name: Self.name(facts), kind: .server,
            startUnixNano: tracer.unixNano(ofMonotonic: record.startedAt), endUnixNano: tracer.nowUnixNano(),
            attributes: attributes, events: facts.reconnectEvents(tracer), droppedEventsCount: facts.reconnectsLeftOut,
            status: end == .error ? .error : .unset))
    }

    /// OpenTelemetry's GraphQL span name: `{type} {name}`, `{type}`, or `GraphQL Operation` before the document was read.
    private static func name(_ facts: OperationRecord.Snapshot) -> String {
        guard let kind = facts.kind else { return "GraphQL Operation" }
        guard let name = facts.operationName else { return kind.rawValue }
        return kind.rawValue + " " + name
    }
}
