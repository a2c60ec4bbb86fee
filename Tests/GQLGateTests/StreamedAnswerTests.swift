import GQLGate
import GQLGateEventLoop
import GQLGateHTTPClient
import Testing

/// Subscriptions answered as SSE and multipart streams by a whole gateway, over
/// loopback, with an exchange standing in for the upstream subscription.
@Suite(.serialized, .timeLimit(.minutes(1))) struct StreamedAnswerTests {
    @Test func sseSendsEveryEventThenComplete() async throws {
        let ticker = TickerExchange(count: 3)
        try await withGateway(ticker) { gateway, client in
            let answer = try await client.execute(subscription(port: gateway.port, accept: "text/event-stream"))
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"] == "text/event-stream; charset=utf-8")
            #expect(answer.headers["x-request-id"]?.isEmpty == false)
            #expect(answer.body.string == ":\n\n" + (0..<3).map { "event: next\ndata: {\"data\":{\"tick\":\($0)}}\n\n" }.joined()
                + "event: complete\ndata:\n\n")
        }
    }

    @Test func multipartSendsAPartPerEventThenTheCloseDelimiter() async throws {
        let ticker = TickerExchange(count: 2)
        try await withGateway(ticker) { gateway, client in
            let answer = try await client.execute(subscription(port: gateway.port, accept: "multipart/mixed;subscriptionSpec=1.0,application/json"))
            #expect(answer.headers["content-type"] == "multipart/mixed;boundary=\"graphql\";subscriptionSpec=1.0")
            #expect(answer.body.string == "\r\n--graphql"
                + (0..<2).map { "\r\ncontent-type: application/json\r\n\r\n{\"payload\":{\"data\":{\"tick\":\($0)}}}\r\n--graphql" }.joined()
                + "--\r\n")
        }
    }

    @Test func aClientThatLeavesEndsTheUpstreamSubscription() async throws {
        let ticker = TickerExchange(count: nil)
        try await withGateway(ticker) { gateway, client in
            var request = subscription(port: gateway.port, accept: "text/event-stream")
            request.timeout = .milliseconds(300)
            await #expect(throws: HTTPClientError.self) { _ = try await client.execute(request) }
            await ticker.waitUntilEnded()
        }
    }

    @Test func drainingCompletesOpenStreamsBeforeTheServerStops() async throws {
        let ticker = TickerExchange(count: nil)
        var config = GatewayConfig()
        config.server.listen = ListenAddress(host: "127.0.0.1", port: 0)
        config.server.loops = .fixed(1)
        config.upstream.url = "http://127.0.0.1:9/graphql"
        let gateway = try Gateway(config: config, exchanges: [.after(.dedupe, ticker)])
        try gateway.start()
        let clientLoops = EventLoopGroup(count: 1)
        let client = HTTPClient(group: clientLoops)
        // The client must outlive its loop: the server closing its kept-alive connection is an event for it.
        defer { withExtendedLifetime(client) { clientLoops.shutdownAndWait() } }
        let pending = Task { try await client.execute(subscription(port: gateway.port, accept: "text/event-stream")) }
        await ticker.waitUntilStarted()

        let outcome = gateway.shutdown(drainTimeout: .seconds(1))
        #expect(outcome.stopped)
        let answer = try await pending.value
        #expect(answer.body.string.hasPrefix(":\n\nevent: next\ndata: {\"data\":{\"tick\":0}}\n\n"))
        #expect(answer.body.string.hasSuffix("event: complete\ndata:\n\n"))
        await ticker.waitUntilEnded()
    }
}

// MARK: - Support

private func subscription(port: UInt16, accept: String) -> HTTPClientRequest {
    HTTPClientRequest(
        url: "http://127.0.0.1:\(port)/graphql", method: .post, headers: ["Content-Type": "application/json", "Accept": accept],
        body: Bytes(#"{"query":"subscription { tick }"}"#))
}

/// Starts a gateway on 127.0.0.1:0 with `exchange` and an unreachable upstream,
/// runs `body` with a client, then drains.
private func withGateway(_ exchange: any Exchange, _ body: (Gateway, HTTPClient) async throws -> Void) async throws {
    var config = GatewayConfig()
    config.server.listen = ListenAddress(host: "127.0.0.1", port: 0)
    config.server.loops = .fixed(1)
    config.upstream.url = "http://127.0.0.1:9/graphql"
    let gateway = try Gateway(config: config, exchanges: [.after(.dedupe, exchange)])
    try gateway.start()
    defer { gateway.shutdown(drainTimeout: .seconds(1)) }
    let clientLoops = EventLoopGroup(count: 1)
    let client = HTTPClient(group: clientLoops)
    // The client must outlive its loop: the server closing its kept-alive connection is an event for it.
    defer { withExtendedLifetime(client) { clientLoops.shutdownAndWait() } }
    try await body(gateway, client)
}

/// Answers subscriptions itself, as an upstream subscription would: `count`
/// results `{"data":{"tick":n}}` 10 ms apart, then complete (nil: never ends).
/// Tells when a stream started and when it was ended, by either side.
struct TickerExchange: Exchange {
    let count: Int?
    private let started: AsyncStream<Void>
    private let startedSink: AsyncStream<Void>.Continuation
    private let ended: AsyncStream<Void>
    private let endedSink: AsyncStream<Void>.Continuation

    init(count: Int?) {
        self.count = count
        (started, startedSink) = AsyncStream.makeStream()
        (ended, endedSink) = AsyncStream.makeStream()
    }

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        guard operation.kind == .subscription else { return try await next(operation) }
        let (results, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
        let count = count, startedSink = startedSink
        let producer = Task {
            var tick = 0
            while count.map({ tick < $0 }) ?? true, !Task.isCancelled {
                continuation.yield(GraphQLResponse(
                    status: 200, headers: ["Content-Type": "application/json"], body: Bytes("{\"data\":{\"tick\":\(tick)}}"),
                    source: .upstream))
                if tick == 0 { startedSink.yield() }
                tick += 1
                try? await Task.sleep(for: .milliseconds(10))
            }
            continuation.finish()
        }
        let endedSink = endedSink
        continuation.onTermination = { _ in
            producer.cancel()
            endedSink.yield()
        }
        return ResultStream(results)
    }

    /// Returns once a stream yielded its first result.
    func waitUntilStarted() async {
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
    }

    /// Returns once a stream ended.
    func waitUntilEnded() async {
        var iterator = ended.makeAsyncIterator()
        _ = await iterator.next()
    }
}
