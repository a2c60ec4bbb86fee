import GQLGatePipeline

/// The pipeline's first stage: records each client request the pipeline
/// answers in the `RequestLog` (metrics and the access line), once, however
/// it was answered — at once on the server thread (a cache hit, a refused
/// operation), by the rest of the pipeline, or with an error. Operations
/// without a `trace` (WebSocket messages, the gateway's own) pass unrecorded;
/// so does a request whose task was cancelled, which whoever cancelled it
/// answered and recorded (a drain cut short).
struct RequestLogExchange: AnswerWatcher {
    let log: RequestLog

    func watch(_ operation: consuming Operation, _ rest: (consuming Operation) async throws -> ResultStream) async throws
        -> ResultStream {
        guard let trace = operation.trace else { return try await rest(operation) }
        let requestID = operation.requestID
        let streams = operation.delivery.streams
        do {
            let results = try await rest(operation)
            if streams {  // answered with a 200 head, then the results as they come
                recordUnlessCancelled(status: 200, requestID: requestID, trace: trace)
                return results
            }
            guard let first = try await results.first() else { throw GatewayError.noResult }
            recordUnlessCancelled(status: first.status, requestID: requestID, trace: trace)
            return .single(first)
        } catch {
            recordUnlessCancelled(status: GatewayError(answering: error).status, requestID: requestID, trace: trace)
            throw error
        }
    }

    private func recordUnlessCancelled(status: Int, requestID: String, trace: RequestTrace) {
        guard !Task.isCancelled else { return }
        log.record(status: status, requestID: requestID, startedAt: trace.startedAt, trace: trace.snapshot)
    }

    func answeredAtOnce(_ operation: borrowing Operation, _ outcome: Result<GraphQLResponse, any Error>) {
        guard let trace = operation.trace else { return }
        let status = switch outcome {
        case .success(let answer): answer.status
        case .failure(let error): GatewayError(answering: error).status
        }
        log.record(status: status, requestID: operation.requestID, startedAt: trace.startedAt, trace: trace.snapshot)
    }
}
