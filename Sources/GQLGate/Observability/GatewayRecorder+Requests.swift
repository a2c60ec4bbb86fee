import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import GQLGateTracing

/// The recorder's end of each client request: how the request was answered,
/// once, however it was — at once on the server thread (a cache hit, a
/// refused operation), by the rest of the pipeline, or with an error: its
/// metrics and access line (`RequestLog`), and, while `tracing.enabled` is set, the
/// server span of each sampled request (OpenTelemetry HTTP server
/// conventions plus the GraphQL operation, the document's SHA-256, the cache
/// status and the persisted document id; never variables, bodies or header
/// values but the trace context; a client key only as its id, `ClientKeyID`).
/// The span starts at the request's arrival and ends with its answer (a
/// stream's, when its results end); upstream attempts become its children.
/// All of it is read from the facts the request's `OperationRecord` kept.
///
/// Operations without a record (the gateway's own) and operations on client
/// WebSockets (which begin and end apart from any HTTP request:
/// `webSocketOperationBegins`) pass here unrecorded; so does a request whose task was cancelled, which
/// whoever cancelled it answered and recorded (a drain cut short).
extension GatewayRecorder {
    /// The endpoint answered `operation` on the server thread with `outcome`
    /// (an answer as the client gets it, or the error a stage threw).
    func answeredAtOnce(_ operation: borrowing Operation, _ outcome: Result<GraphQLResponse, any Error>) {
        guard let facts = operation.facts, operation.clientTransport != .webSocket else { return }
        let status = WatchedAnswer.status(of: outcome, as: operation.responseMediaType)
        if let spans, let (context, parent) = spans.start(operation) {
            facts.spanStarted(context)
            log.record(status: status, requestID: operation.requestID, startedAt: facts.startedAt, facts: facts,
                       clientCertificate: facts.clientCertificate)
            spans.finish(context, parent: parent, ServerSpans.RequestFacts(operation, identifiesClientKeys: spans.identifiesClientKeys),
                         record: facts, status: status)
            return
        }
        log.record(status: status, requestID: operation.requestID, startedAt: facts.startedAt, facts: facts,
                   clientCertificate: facts.clientCertificate)
    }

    /// Runs `rest` (the pipeline, on a loop) with `operation` and records how it was answered.
    func watch(_ operation: Operation, _ rest: (Operation) async throws -> ResultStream) async throws -> ResultStream {
        guard let facts = operation.facts, operation.clientTransport != .webSocket else { return try await rest(operation) }
        guard let spans, let (context, parent) = spans.start(operation) else {
            return try await logged(operation, facts: facts, rest)
        }
        return try await traced(operation, facts: facts, spans: spans, context: context, parent: parent, rest)
    }

    /// `watch` for a request whose server span is recording. Apart, so that
    /// the async frame of every request (traced or not) holds none of this.
    @inline(never)
    private func traced(_ operation: Operation, facts: OperationRecord, spans: ServerSpans, context: SpanContext, parent: UInt64,
                        _ rest: (Operation) async throws -> ResultStream) async throws -> ResultStream {
        facts.spanStarted(context)
        let request = ServerSpans.RequestFacts(operation, identifiesClientKeys: spans.identifiesClientKeys)
        var status = 0
        let results: ResultStream
        do {
            results = try await WatchedAnswer.awaiting(operation, streams: request.streams, { try await logged($0, facts: facts, rest) }) {
                status = $0
            }
        } catch {
            spans.finish(context, parent: parent, request, record: facts, status: status)
            throw error
        }
        // Streamed results get a 200 head at once; the span lasts as long as they do.
        if request.streams, let channel = results.channel {
            return ResultStream(SpanLifetime.watching(channel) { spans.finish(context, parent: parent, request, record: facts, status: 200) })
        }
        spans.finish(context, parent: parent, request, record: facts, status: status)
        return results
    }

    /// `rest`, with what it comes to in the request log.
    private func logged(_ operation: Operation, facts: OperationRecord, _ rest: (Operation) async throws -> ResultStream) async throws
        -> ResultStream {
        let requestID = operation.requestID
        return try await WatchedAnswer.awaiting(operation, streams: operation.delivery.streams, rest) { status in
            guard !Task.isCancelled else { return }
            log.record(status: status, requestID: requestID, startedAt: facts.startedAt, facts: facts,
                       clientCertificate: facts.clientCertificate)
        }
    }
}

