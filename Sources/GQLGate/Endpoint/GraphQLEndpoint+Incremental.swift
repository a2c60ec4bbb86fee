import GQLGateEventLoop
import GQLGateHTTPServer
import GQLGatePipeline
import GQLGateSubscriptions

extension GraphQLEndpoint {
    /// The answer to an operation whose upstream answered incrementally
    /// (`@defer`, `@stream`): the upstream's status and header fields with
    /// gqlgate's `multipart/mixed` type, then `first` and each of `rest` as
    /// a part, written as they come (HTTP/1.1 chunks), never compressed. The
    /// stream is open until its body ended; a drain lets it finish, like a
    /// request in flight, for up to `server.drain_timeout`.
    func incrementalAnswer(_ first: GraphQLResponse, rest: SubsequentResults, requestID: String) -> ServerResponse {
        let body = StreamingBody(bufferLimit: Self.streamBufferLimit)
        let writer = IncrementalAnswerWriter(sink: body)
        let firstResult = first.body
        streams.start(writing: body, on: EventLoop.current ?? loops.next(), endsOnItsOwn: true) {
            await writer.run(first: firstResult, rest: rest)
        }
        var headers = first.headers
        headers.replaceOrAdd(name: "Content-Type", value: IncrementalDelivery.contentType(replacing: first.headers["content-type"]))
        headers.replaceOrAdd(name: "X-Accel-Buffering", value: "no")  // proxies pass each part on as it comes
        Self.stamp(&headers, requestID: requestID)
        return .streaming(status: first.status, headers: headers, body: body)
    }
}
