@_spi(GQLGateInternals) import GQLGateCore
@testable import GQLGate
import Testing

/// The bytes a streamed answer gets for fake result streams, SSE and multipart.
@Suite(.timeLimit(.minutes(1))) struct ResultStreamWriterTests {
    @Test func sseSendsACommentEachResultAsNextThenComplete() async {
        let sink = RecordingSink()
        let results = ResultStream(stream(of: [#"{"data":{"n":3}}"#, #"{"data":{"n":2}}"#]))
        await ResultStreamWriter(format: .serverSentEvents(keepAlive: .zero), sink: sink).run(results)
        #expect(sink.text == ":\n\n" + "event: next\ndata: {\"data\":{\"n\":3}}\n\n" + "event: next\ndata: {\"data\":{\"n\":2}}\n\n"
            + "event: complete\ndata:\n\n")
        #expect(sink.finished)
    }

    @Test func multipartSendsAPayloadPartPerResultThenTheCloseDelimiter() async {
        let sink = RecordingSink()
        await ResultStreamWriter(format: .multipart, sink: sink).run(.single(response(#"{"data":{"hello":"hi"}}"#)))
        #expect(sink.text == "\r\n--graphql" + "\r\ncontent-type: application/json\r\n\r\n{\"payload\":{\"data\":{\"hello\":\"hi\"}}}\r\n--graphql"
            + "--\r\n")
        #expect(sink.finished)
    }

    @Test func graphQLErrorsEndingTheStreamAreOneLastResult() async {
        let errors: [JSONValue] = [.object([("message", .string("boom"))])]
        let (results, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
        continuation.finish(throwing: GraphQLErrorsFailure(errors: errors))
        let sse = RecordingSink()
        await ResultStreamWriter(format: .serverSentEvents(keepAlive: .zero), sink: sse).run(ResultStream(results))
        #expect(sse.text == ":\n\nevent: next\ndata: {\"errors\":[{\"message\":\"boom\"}]}\n\nevent: complete\ndata:\n\n")

        let (again, failing) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
        failing.finish(throwing: GraphQLErrorsFailure(errors: errors))
        let multipart = RecordingSink()
        await ResultStreamWriter(format: .multipart, sink: multipart).run(ResultStream(again))
        #expect(multipart.text.hasSuffix("{\"payload\":{\"errors\":[{\"message\":\"boom\"}]}}\r\n--graphql--\r\n"))
    }

    @Test func gatewayErrorsAfterTheStartAreTransportErrors() async {
        let (results, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
        continuation.yield(response(#"{"data":{"n":1}}"#))
        continuation.finish(throwing: GatewayError.upstreamUnavailable("gone"))
        let multipart = RecordingSink()
        await ResultStreamWriter(format: .multipart, sink: multipart).run(ResultStream(results))
        #expect(multipart.text.hasSuffix(
            "{\"payload\":{\"data\":{\"n\":1}}}\r\n--graphql"
                + "\r\ncontent-type: application/json\r\n\r\n{\"payload\":null,\"errors\":[{\"message\":\"gone\",\"extensions\":{\"code\":\"UPSTREAM_UNAVAILABLE\"}}]}\r\n--graphql--\r\n"))

        let (again, failing) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
        failing.finish(throwing: GatewayError.upstreamTimeout("slow"))
        let sse = RecordingSink()
        await ResultStreamWriter(format: .serverSentEvents(keepAlive: .zero), sink: sse).run(ResultStream(again))
        #expect(sse.text == ":\n\nevent: next\ndata: {\"errors\":[{\"message\":\"slow\",\"extensions\":{\"code\":\"UPSTREAM_TIMEOUT\"}}]}\n\n"
            + "event: complete\ndata:\n\n")
    }

    @Test func aBodyThatIsNoGraphQLResponseEndsTheStreamWithAnError() async {
        let sink = RecordingSink()
        let page = GraphQLResponse(status: 502, headers: ["Content-Type": "text/html"], body: Bytes("<html>Bad gateway</html>"), source: .upstream)
        await ResultStreamWriter(format: .serverSentEvents(keepAlive: .zero), sink: sink).run(.single(page))
        #expect(sink.text == ":\n\nevent: next\ndata: {\"errors\":[{\"message\":\"The upstream answered 502 without a GraphQL response.\","
            + "\"extensions\":{\"code\":\"UPSTREAM_UNAVAILABLE\"}}]}\n\nevent: complete\ndata:\n\n")
    }

    @Test func resultsWithLineBreaksBecomeSeveralDataLines() async {
        let sink = RecordingSink()
        await ResultStreamWriter(format: .serverSentEvents(keepAlive: .zero), sink: sink).run(.single(response("{\n  \"data\": null\n}\n")))
        #expect(sink.text == ":\n\nevent: next\ndata: {\ndata:   \"data\": null\ndata: }\ndata: \n\nevent: complete\ndata:\n\n")
    }

    @Test func keepAlivesFlowWhileNoResultComes() async {
        let sink = RecordingSink()
        let (results, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
        let writer = Task { await ResultStreamWriter(format: .serverSentEvents(keepAlive: .milliseconds(10)), sink: sink).run(ResultStream(results)) }
        await sink.waitUntil { $0.components(separatedBy: ":\n\n").count - 1 >= 3 }
        continuation.yield(response(#"{"data":{"n":0}}"#))
        continuation.finish()
        await writer.value
        // Blocks of the stream; more keep-alives may come at any point while the test runs.
        let blocks = sink.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(blocks.prefix { $0 == ":" }.count >= 3)
        #expect(blocks.filter { $0 != ":" } == ["event: next\ndata: {\"data\":{\"n\":0}}", "event: complete\ndata:"])
        #expect(sink.text.hasSuffix("\n\n"))
    }

    @Test func aClientThatLeftStopsTheWriterAndEndsTheResults() async {
        let sink = RecordingSink(acceptedWrites: 2)
        let ended = Lock(false)
        let (results, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
        continuation.onTermination = { _ in ended.withLock { $0 = true } }
        let writer = Task { await ResultStreamWriter(format: .serverSentEvents(keepAlive: .zero), sink: sink).run(ResultStream(results)) }
        continuation.yield(response(#"{"data":{"n":1}}"#))
        continuation.yield(response(#"{"data":{"n":2}}"#))
        await writer.value
        #expect(ended.withLock { $0 })
        #expect(sink.text == ":\n\nevent: next\ndata: {\"data\":{\"n\":1}}\n\n")
    }

    @Test func cancellingTheWriterCompletesTheStreamAndEndsTheResults() async {
        let sink = RecordingSink()
        let ended = Lock(false)
        let (results, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
        continuation.onTermination = { _ in ended.withLock { $0 = true } }
        let writer = Task { await ResultStreamWriter(format: .multipart, sink: sink).run(ResultStream(results)) }
        continuation.yield(response(#"{"data":{"n":1}}"#))
        await sink.waitUntil { $0.contains("\"n\":1") }
        writer.cancel()
        await writer.value
        #expect(ended.withLock { $0 })
        #expect(sink.text.hasSuffix("{\"payload\":{\"data\":{\"n\":1}}}\r\n--graphql--\r\n"))
        #expect(sink.finished)
    }
}

@Suite struct ResultDeliveryAcceptTests {
    @Test func acceptPicksTheDelivery() {
        #expect(ResultDelivery.requested(byAccept: nil) == .single)
        #expect(ResultDelivery.requested(byAccept: "application/json") == .single)
        #expect(ResultDelivery.requested(byAccept: "*/*") == .single)
        #expect(ResultDelivery.requested(byAccept: "text/event-stream") == .serverSentEvents)
        #expect(ResultDelivery.requested(byAccept: "application/json, Text/Event-Stream;q=0.9") == .serverSentEvents)
        #expect(ResultDelivery.requested(byAccept: "multipart/mixed;subscriptionSpec=\"1.0\", application/json") == .multipart)
        #expect(ResultDelivery.requested(byAccept: "multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/json") == .multipart)
        #expect(ResultDelivery.requested(byAccept: "multipart/mixed;deferSpec=20220824, application/json") == .single)
    }

    @Test func onlyHTTPStreamsHaveAFormat() {
        #expect(HTTPStreamFormat(.serverSentEvents, keepAlive: .seconds(15))?.keepAliveInterval == .seconds(15))
        #expect(HTTPStreamFormat(.serverSentEvents, keepAlive: .zero)?.keepAliveInterval == nil)
        #expect(HTTPStreamFormat(.multipart, keepAlive: .zero)?.keepAliveInterval == .seconds(5))
        #expect(HTTPStreamFormat(.single, keepAlive: .seconds(15)) == nil)
        #expect(HTTPStreamFormat(.webSocket, keepAlive: .seconds(15)) == nil)
    }
}

// MARK: - Support

private func response(_ json: String) -> GraphQLResponse {
    GraphQLResponse(status: 200, headers: ["Content-Type": "application/json"], body: Bytes(json), source: .upstream)
}

private func stream(of bodies: [String]) -> AsyncThrowingStream<GraphQLResponse, any Error> {
    let (stream, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
    for body in bodies { continuation.yield(response(body)) }
    continuation.finish()
    return stream
}

/// Records what the writer sends; refuses writes past `acceptedWrites` (a client that left).
final class RecordingSink: StreamSink {
    private struct State {
        var text = ""
        var writes = 0
        var finished = false
        var waiters: [(condition: @Sendable (String) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let acceptedWrites: Int
    private let state = Lock(State())

    init(acceptedWrites: Int = .max) {
        self.acceptedWrites = acceptedWrites
    }

    var text: String { state.withLock { $0.text } }
    var finished: Bool { state.withLock { $0.finished } }

    func write(_ text: String) -> Bool {
        let (accepted, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            guard state.writes < acceptedWrites else { return (false, []) }
            state.writes += 1
            state.text += text
            let current = state.text
            let ready = state.waiters.filter { $0.condition(current) }.map(\.continuation)
            state.waiters.removeAll { $0.condition(current) }
            return (true, ready)
        }
        for continuation in ready { continuation.resume() }
        return accepted
    }

    func finish() {
        state.withLock { $0.finished = true }
    }

    /// Returns once what was written satisfies `condition`.
    func waitUntil(_ condition: @escaping @Sendable (String) -> Bool) async {
        await withCheckedContinuation { continuation in
            let met = state.withLock { state -> Bool in
                if condition(state.text) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if met { continuation.resume() }
        }
    }
}
