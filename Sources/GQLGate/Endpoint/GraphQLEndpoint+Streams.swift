import GQLGateEventLoop
import GQLGateHTTPServer
import GQLGatePipeline

extension GraphQLEndpoint {
    /// The most bytes a streamed answer may queue for a client that does
    /// not read; past it the client is dropped.
    static let streamBufferLimit = 1 << 20

    /// Runs `operation` (its delivery SSE or multipart) through the pipeline and
    /// answers with its results as a stream. The chain's errors are thrown,
    /// so they become ordinary JSON answers; once it returns results, what
    /// goes wrong goes in the stream. The client leaving cancels the writer,
    /// which ends the results (and the upstream subscription).
    func streamedAnswer(_ operation: Operation, format: HTTPStreamFormat, pipeline: GatewayGeneration) async throws -> ServerResponse {
        let results = try await pipeline.recorder.watch(operation) { try await pipeline.chain.run($0) }
        let body = StreamingBody(bufferLimit: Self.streamBufferLimit)
        let writer = ResultStreamWriter(format: format, sink: body)
        streams.start(writing: body, on: EventLoop.current ?? loops.next()) { await writer.run(results) }
        var headers = format.headers
        Self.stamp(&headers, requestID: operation.requestID)
        return .streaming(status: 200, headers: headers, body: body)
    }
}
