import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import GQLGateTracing

/// The server spans of sampled client requests (`GatewayRecorder`).
struct ServerSpans: Sendable {
    let tracer: Tracer
    /// The GraphQL path (`server.path`): the span's route.
    let path: String
    /// Whether clients present keys (`clients.api_keys_file`): the span then names the request's key by its id.
    let identifiesClientKeys: Bool
    /// The spans' names: `POST /graphql`, `GET /graphql`.
    private let postName: String, getName: String

    init(tracer: Tracer, path: String, identifiesClientKeys: Bool) {
        self.tracer = tracer
        self.path = path
        self.identifiesClientKeys = identifiesClientKeys
        postName = "POST " + path
        getName = "GET " + path
    }

    func start(_ operation: borrowing Operation) -> (SpanContext, UInt64)? {
        guard let traceparent = operation.headers["traceparent"] else {
            return tracer.startServerSpan(traceparent: nil, tracestate: nil)
        }
        return tracer.startServerSpan(traceparent: traceparent, tracestate: operation.headers["tracestate"])
    }

    /// Finishes an HTTP request's span.
    func finish(_ context: SpanContext, parent: UInt64, _ request: RequestFacts, record: OperationRecord, status: Int) {
        var attributes: [SpanAttribute] = []
        attributes.reserveCapacity(14)  // the five below and those noted
        attributes.append(SpanAttribute("http.request.method", request.isGet ? "GET" : "POST"))
        attributes.append(SpanAttribute("http.route", path))
        attributes.append(SpanAttribute("url.path", path))
        attributes.append(SpanAttribute("http.response.status_code", status))
        attributes.append(SpanAttribute("gqlgate.request_id", request.requestID))
        if let keyID = request.clientKeyID { attributes.append(SpanAttribute("gqlgate.client.key_id", keyID)) }
        finish(context, parent: parent, name: request.isGet ? getName : postName, facts: record.snapshot, startedAt: record.startedAt,
               attributes: attributes, closing: status >= 500 ? [SpanAttribute("error.type", String(status))] : [], failed: status >= 500)
    }

    /// Finishes a server span, an HTTP request's or a WebSocket operation's:
    /// `attributes`, then what the record noted, then `closing`; its waits
    /// become child spans and its upstream reconnects events.
    func finish(_ context: SpanContext, parent: UInt64, name: String, facts: OperationRecord.Snapshot, startedAt: UInt64,
                attributes: consuming [SpanAttribute], closing: [SpanAttribute], failed: Bool) {
        facts.addSpanAttributes(to: &attributes)
        attributes.append(contentsOf: closing)
        tracer.finishWaits(of: facts, under: context)
        tracer.finished(SpanRecord(
            context: context, parentSpanID: parent, name: name, kind: .server,
            startUnixNano: tracer.unixNano(ofMonotonic: startedAt), endUnixNano: tracer.nowUnixNano(),
            attributes: attributes, events: facts.reconnectEvents(tracer), droppedEventsCount: facts.reconnectsLeftOut,
            status: failed ? .error : .unset))
    }

    /// What the span tells of the client request, kept before the operation goes on.
    struct RequestFacts {
        let isGet: Bool
        let requestID: String
        let streams: Bool
        /// The id of the client key the request was let in with.
        let clientKeyID: String?

        init(_ operation: borrowing Operation, identifiesClientKeys: Bool) {
            isGet = operation.clientTransport == .httpGet
            requestID = operation.requestID
            streams = operation.delivery.streams
            clientKeyID = identifiesClientKeys ? ClientAuthenticator.presentedKey(in: operation.headers).map(ClientKeyID.of) : nil
        }
    }
}
