import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import GQLGateTracing

/// Makes each sampled client request's server span (OpenTelemetry HTTP
/// server conventions plus the GraphQL operation, the document's SHA-256, the
/// cache status and the persisted document id; never variables, bodies or
/// header values but the trace context; a client key only as its id,
/// `ClientKeyID`). Only while `tracing.enabled` is
/// set, it takes the request log's slot and runs the request log inside it:
/// the head keeps one watcher, which the chain calls directly on a resumed
/// run. The span starts at the request's arrival and ends with its answer,
/// however the pipeline gives it (a subscription's, when its results end).
/// Upstream attempts read the span from the request's `RequestTrace` (`TracingTransport`).
/// Operations on client WebSockets pass through: their session makes their spans (`WebSocketOperationSpan`).
struct TracingExchange: AnswerWatcher {
    let tracer: Tracer
    /// The GraphQL path (`server.path`): the span's route.
    let path: String
    /// The request log it runs, with the span's ids set for the access line.
    let requestLog: RequestLogExchange
    /// Whether clients present keys (`clients.api_keys_file`): the span then names the request's key by its id.
    let identifiesClientKeys: Bool
    /// The spans' names: `POST /graphql`, `GET /graphql`.
    private let postName: String, getName: String

    init(tracer: Tracer, path: String, requestLog: RequestLogExchange, identifiesClientKeys: Bool) {
        self.tracer = tracer
        self.path = path
        self.requestLog = requestLog
        self.identifiesClientKeys = identifiesClientKeys
        postName = "POST " + path
        getName = "GET " + path
    }

    func watch(_ operation: consuming Operation, _ rest: (consuming Operation) async throws -> ResultStream) async throws
        -> ResultStream {
        guard let trace = operation.trace, operation.clientTransport != .webSocket, let (context, parent) = start(operation) else {
            return try await requestLog.watch(operation, rest)
        }
        trace.spanStarted(context)
        let request = RequestFacts(operation, identifiesClientKeys: identifiesClientKeys)
        var status = 0
        let results: ResultStream
        do {
            results = try await WatchedAnswer.awaiting(operation, streams: request.streams, { try await requestLog.watch($0, rest) }) {
                status = $0
            }
        } catch {
            finish(context, parent: parent, request, trace: trace, status: status)
            throw error
        }
        // Streamed results get a 200 head at once; the span lasts as long as they do.
        if request.streams, let channel = results.channel {
            return ResultStream(SpanLifetime.watching(channel) { finish(context, parent: parent, request, trace: trace, status: 200) })
        }
        finish(context, parent: parent, request, trace: trace, status: status)
        return results
    }

    func answeredAtOnce(_ operation: borrowing Operation, _ outcome: Result<GraphQLResponse, any Error>) {
        guard let trace = operation.trace, operation.clientTransport != .webSocket, let (context, parent) = start(operation) else {
            return requestLog.answeredAtOnce(operation, outcome)
        }
        trace.spanStarted(context)
        requestLog.answeredAtOnce(operation, outcome)
        finish(context, parent: parent, RequestFacts(operation, identifiesClientKeys: identifiesClientKeys), trace: trace,
               status: WatchedAnswer.status(of: outcome))
    }

    private func start(_ operation: borrowing Operation) -> (SpanContext, UInt64)? {
        guard let traceparent = operation.headers["traceparent"] else {
            return tracer.startServerSpan(traceparent: nil, tracestate: nil)
        }
        return tracer.startServerSpan(traceparent: traceparent, tracestate: operation.headers["tracestate"])
    }

    private func finish(_ context: SpanContext, parent: UInt64, _ request: RequestFacts, trace: RequestTrace, status: Int) {
        let facts = trace.snapshot
        var attributes: [SpanAttribute] = []
        attributes.reserveCapacity(14)  // the five below and those noted
        attributes.append(SpanAttribute("http.request.method", request.isGet ? "GET" : "POST"))
        attributes.append(SpanAttribute("http.route", path))
        attributes.append(SpanAttribute("url.path", path))
        attributes.append(SpanAttribute("http.response.status_code", status))
        attributes.append(SpanAttribute("gqlgate.request_id", request.requestID))
        if let keyID = request.clientKeyID { attributes.append(SpanAttribute("gqlgate.client.key_id", keyID)) }
        facts.addSpanAttributes(to: &attributes)
        if status >= 500 { attributes.append(SpanAttribute("error.type", String(status))) }
        tracer.finishWaits(of: facts, under: context)
        tracer.finished(SpanRecord(
            context: context, parentSpanID: parent, name: request.isGet ? getName : postName, kind: .server,
            startUnixNano: tracer.unixNano(ofMonotonic: trace.startedAt), endUnixNano: tracer.nowUnixNano(),
            attributes: attributes, events: facts.reconnectEvents(tracer), droppedEventsCount: facts.reconnectsLeftOut,
            status: status >= 500 ? .error : .unset))
    }

    /// What the span tells of the client request, kept before the operation goes on.
    private struct RequestFacts {
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
