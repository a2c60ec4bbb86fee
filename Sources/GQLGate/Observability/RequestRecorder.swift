import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import GQLGateTracing

/// Records each client request the pipeline answers, once, however it was
/// answered — at once on the server thread (a cache hit, a refused
/// operation), by the rest of the pipeline, or with an error: its metrics
/// and access line (`RequestLog`), and, while `tracing.enabled` is set, the
/// server span of each sampled request (OpenTelemetry HTTP server
/// conventions plus the GraphQL operation, the document's SHA-256, the cache
/// status and the persisted document id; never variables, bodies or header
/// values but the trace context; a client key only as its id, `ClientKeyID`).
/// The span starts at the request's arrival and ends with its answer (a
/// stream's, when its results end); upstream attempts read it from the
/// request's `RequestTrace` (`TracingTransport`).
///
/// Operations without a `trace` (the gateway's own) and operations on client
/// WebSockets (whose session makes their spans, `WebSocketOperationSpan`)
/// pass unrecorded; so does a request whose task was cancelled, which
/// whoever cancelled it answered and recorded (a drain cut short).
struct RequestRecorder: Sendable {
    let log: RequestLog
    /// Makes the server spans, when `tracing.enabled`.
    let spans: ServerSpans?

    /// The endpoint answered `operation` on the server thread with `outcome`
    /// (an answer, or the error a stage threw).
    func answeredAtOnce(_ operation: borrowing Operation, _ outcome: Result<GraphQLResponse, any Error>) {
        guard let trace = operation.trace, operation.clientTransport != .webSocket else { return }
        let status = WatchedAnswer.status(of: outcome)
        if let spans, let (context, parent) = spans.start(operation) {
            trace.spanStarted(context)
            log.record(status: status, requestID: operation.requestID, startedAt: trace.startedAt, trace: trace.snapshot,
                       clientCertificate: trace.clientCertificate)
            spans.finish(context, parent: parent, ServerSpans.RequestFacts(operation, identifiesClientKeys: spans.identifiesClientKeys),
                         trace: trace, status: status)
            return
        }
        log.record(status: status, requestID: operation.requestID, startedAt: trace.startedAt, trace: trace.snapshot,
                   clientCertificate: trace.clientCertificate)
    }

    /// Runs `rest` (the pipeline, on a loop) with `operation` and records how it was answered.
    func watch(_ operation: Operation, _ rest: (Operation) async throws -> ResultStream) async throws -> ResultStream {
        guard let trace = operation.trace, operation.clientTransport != .webSocket else { return try await rest(operation) }
        guard let spans, let (context, parent) = spans.start(operation) else {
            return try await logged(operation, trace: trace, rest)
        }
        trace.spanStarted(context)
        let request = ServerSpans.RequestFacts(operation, identifiesClientKeys: spans.identifiesClientKeys)
        var status = 0
        let results: ResultStream
        do {
            results = try await WatchedAnswer.awaiting(operation, streams: request.streams, { try await logged($0, trace: trace, rest) }) {
                status = $0
            }
        } catch {
            spans.finish(context, parent: parent, request, trace: trace, status: status)
            throw error
        }
        // Streamed results get a 200 head at once; the span lasts as long as they do.
        if request.streams, let channel = results.channel {
            return ResultStream(SpanLifetime.watching(channel) { spans.finish(context, parent: parent, request, trace: trace, status: 200) })
        }
        spans.finish(context, parent: parent, request, trace: trace, status: status)
        return results
    }

    /// `rest`, with what it comes to in the request log.
    private func logged(_ operation: Operation, trace: RequestTrace, _ rest: (Operation) async throws -> ResultStream) async throws
        -> ResultStream {
        let requestID = operation.requestID
        return try await WatchedAnswer.awaiting(operation, streams: operation.delivery.streams, rest) { status in
            guard !Task.isCancelled else { return }
            log.record(status: status, requestID: requestID, startedAt: trace.startedAt, trace: trace.snapshot,
                       clientCertificate: trace.clientCertificate)
        }
    }
}

/// The server spans of sampled client requests (`RequestRecorder`).
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

    func finish(_ context: SpanContext, parent: UInt64, _ request: RequestFacts, trace: RequestTrace, status: Int) {
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
