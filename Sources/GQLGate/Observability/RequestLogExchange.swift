import GQLGatePipeline

/// The pipeline's first stage: records each client request the pipeline
/// answers in the `RequestLog` (metrics and the access line), once, however
/// it was answered — at once on the server thread (a cache hit, a refused
/// operation), by the rest of the pipeline, or with an error. Operations
/// without a `trace` (the gateway's own) and operations on client WebSockets
/// (whose trace, when they have one, serves their span) pass unrecorded;
/// so does a request whose task was cancelled, which whoever cancelled it
/// answered and recorded (a drain cut short).
struct RequestLogExchange: AnswerWatcher {
    let log: RequestLog

    func watch(_ operation: consuming Operation, _ rest: (consuming Operation) async throws -> ResultStream) async throws
        -> ResultStream {
        guard let trace = operation.trace, operation.clientTransport != .webSocket else { return try await rest(operation) }
        let requestID = operation.requestID
        let streams = operation.delivery.streams
        return try await WatchedAnswer.awaiting(operation, streams: streams, rest) { status in
            recordUnlessCancelled(status: status, requestID: requestID, trace: trace)
        }
    }

    private func recordUnlessCancelled(status: Int, requestID: String, trace: RequestTrace) {
        guard !Task.isCancelled else { return }
        log.record(status: status, requestID: requestID, startedAt: trace.startedAt, trace: trace.snapshot,
                   clientCertificate: trace.clientCertificate)
    }

    func answeredAtOnce(_ operation: borrowing Operation, _ outcome: Result<GraphQLResponse, any Error>) {
        guard let trace = operation.trace, operation.clientTransport != .webSocket else { return }
        log.record(status: WatchedAnswer.status(of: outcome), requestID: operation.requestID, startedAt: trace.startedAt,
                   trace: trace.snapshot, clientCertificate: trace.clientCertificate)
    }
}
