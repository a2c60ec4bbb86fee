import GQLGatePipeline

/// How a client request was answered, as the stages that watch it (the
/// request log, the tracing stage) read it: the answer's status, whatever
/// form the answer took.
enum WatchedAnswer {
    /// The status of an answer given at once, or of the error answered instead.
    static func status(of outcome: Result<GraphQLResponse, any Error>) -> Int {
        switch outcome {
        case .success(let answer): answer.status
        case .failure(let error): GatewayError(answering: error).status
        }
    }

    /// Runs `rest` with `operation` and reads the status the client gets:
    /// streamed results as they are with 200 (their head goes out before
    /// them), else the first result alone with its status, or the error with
    /// the status it is answered with.
    static func awaiting(_ operation: consuming Operation, streams: Bool,
                         _ rest: (consuming Operation) async throws -> ResultStream) async
        -> (answer: Result<ResultStream, any Error>, status: Int) {
        do {
            let results = try await rest(operation)
            if streams { return (.success(results), 200) }
            guard let first = try await results.first() else { throw GatewayError.noResult }
            return (.success(.single(first)), first.status)
        } catch {
            return (.failure(error), GatewayError(answering: error).status)
        }
    }
}
