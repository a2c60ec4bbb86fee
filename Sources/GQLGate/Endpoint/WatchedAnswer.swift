import GQLGatePipeline

/// How a client request was answered, as the request recorder reads it: the answer's status, whatever
/// form the answer took.
enum WatchedAnswer {
    /// The status of an answer given at once, or of the error answered
    /// instead in `mediaType` (the client's).
    static func status(of outcome: Result<GraphQLResponse, any Error>, as mediaType: ResponseMediaType) -> Int {
        switch outcome {
        case .success(let answer): answer.status
        case .failure(let error): GatewayError(answering: error).status(as: mediaType)
        }
    }

    /// Runs `rest` with `operation` and tells `answered` the status the client
    /// gets, once, before returning or throwing: streamed results are returned
    /// as they are with 200 (their head goes out before them), else the first
    /// result alone with its status (`rest` gives it in the client's media
    /// type); an error is thrown on after its status in that type.
    @inline(__always)
    static func awaiting(_ operation: Operation, streams: Bool,
                         _ rest: (Operation) async throws -> ResultStream,
                         answered: (Int) -> Void) async throws -> ResultStream {
        do {
            let results = try await rest(operation)
            if streams {
                answered(200)
                return results
            }
            guard let first = try await results.first() else { throw GatewayError.noResult }
            answered(first.status)
            return .single(first)
        } catch {
            answered(GatewayError(answering: error).status(as: operation.responseMediaType))
            throw error
        }
    }
}
