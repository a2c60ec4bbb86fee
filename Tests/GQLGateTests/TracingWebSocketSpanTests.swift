@testable import GQLGate
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateTracing
import GQLGateTransports
import Testing

/// The upstream's WebSocket: subscriptions get the results the test pushes through `channel`.
private final class SubscriptionUpstream: Transport, Sendable {
    let channel = ResultChannel(bufferLimit: 16)

    func send(_ operation: Operation) async throws -> ResultStream {
        ResultStream(channel)
    }
}

/// The upstream over HTTP: one answer per attempt, stated as `HTTPTransport` does.
private struct HTTPUpstream: Transport {
    func send(_ operation: Operation) async throws -> ResultStream {
        .single(try await operation.upstreamAttempt { _ in
            GraphQLResponse(status: 200, headers: [:], body: Bytes(#"{"data":{"hello":"hi"}}"#), source: .upstream)
        })
    }
}

private let clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
private let upgradeParent = "00-\(clientTrace)-00f067aa0ba902b7-01"
private let secret = "s3cr3t-value"

/// A client WebSocket's operations through a pipeline with tracing on, as the session runs them.
private struct TracedSocket {
    let tracer = Tracer(sampler: Sampler(ratio: 1), queue: SpanQueue(capacity: 100))
    let recorder: GatewayRecorder
    let subscriptions = SubscriptionUpstream()
    var origin = WebSocketTraceOrigin(
        upgradeHeaders: ["traceparent": upgradeParent, "x-api-key": secret], path: "/graphql", subprotocol: "graphql-transport-ws",
        clientAddress: "192.0.2.7")

    init() {
        recorder = tracingRecorder(tracer, upstream: "http://api.internal:4000/graphql")
    }

    var chain: ExchangeChain {
        ExchangeChain(
            stages: [.inline(DocumentExchange(cache: DocumentCache()))],
            transport: SplitTransport(
                http: HTTPUpstream(),
                subscriptions: subscriptions))
    }

    /// Starts `query` as the session does: its span, then the operation with the span's trace through the chain.
    func start(_ query: String, extensions: JSONValue? = nil) async throws -> (WebSocketOperationRecord, ResultStream) {
        let request = GraphQLRequest(query: query, variables: .object([("token", .string(secret))]), extensions: extensions)
        let span = recorder.webSocketOperationBegins(request, requestID: "ws-1", origin: origin)
        let operation = Operation(
            request: request, clientTransport: .webSocket, delivery: .webSocket, headers: ["x-api-key": secret], requestID: "ws-1",
            originalBody: nil, facts: span.facts)
        return (span, try await chain.run(operation))
    }

    var spans: [SpanRecord] { tracer.queue.take(upTo: 100) }
}

@Suite struct TracingWebSocketSpanTests {
    @Test func aSubscriptionIsOneServerSpanForItsLifetimeWithAnEventPerUpstreamReconnect() async throws {
        let socket = TracedSocket()
        let (span, results) = try await socket.start("subscription Ticks { ticks }")
        #expect(results.channel != nil)
        let now = GatewayClock.system.monotonicNanoseconds()
        span.facts.record(.upstreamReconnecting(UpstreamReconnect(at: now, attempt: 1, reason: .closed, closeCode: 1006)))
        span.facts.record(.upstreamReconnecting(UpstreamReconnect(at: now, attempt: 2, reason: .connectFailed)))
        #expect(socket.tracer.queue.count == 0)  // the pipeline's tracing stage makes no span of its own for it
        span.ended(.stopped)

        let spans = socket.spans
        #expect(spans.count == 1)
        let server = try #require(spans.first)
        #expect(server.kind == .server)
        #expect(server.name == "subscription Ticks")
        #expect(server.context.traceID.hex == clientTrace)
        #expect(server.parentSpanID == 0x00f0_67aa_0ba9_02b7)
        #expect(server["graphql.operation.type"] == .string("subscription"))
        #expect(server["graphql.document.sha256"] == .string(DocumentCache.digest(of: "subscription Ticks { ticks }").hexString))
        #expect(server["gqlgate.websocket.end"] == .string("stopped"))
        #expect(server["gqlgate.websocket.subprotocol"] == .string("graphql-transport-ws"))
        #expect(server["client.address"] == .string("192.0.2.7"))
        #expect(server["gqlgate.request_id"] == .string("ws-1"))
        #expect(server.status == .unset)
        #expect(server.events.map(\.name) == ["upstream.reconnect", "upstream.reconnect"])
        #expect(server.events.map(\.attributes) == [
            [SpanAttribute("gqlgate.upstream.reconnect.attempt", 1), SpanAttribute("gqlgate.upstream.reconnect.reason", "closed"),
             SpanAttribute("gqlgate.upstream.close_code", 1006)],
            [SpanAttribute("gqlgate.upstream.reconnect.attempt", 2), SpanAttribute("gqlgate.upstream.reconnect.reason", "connect_failed")],
        ])
        #expect(server.events.allSatisfy { server.startUnixNano <= $0.timeUnixNano && $0.timeUnixNano <= server.endUnixNano })
        let encoded = OTLPTraceEncoder(resource: [], scopeName: "gqlgate", scopeVersion: "test").encode(spans)
        #expect(!encoded.containsSubsequence(Array(secret.utf8)))
    }

    @Test func aQueryOverTheSocketIsAServerSpanOverItsAttempt() async throws {
        let socket = TracedSocket()
        let (span, results) = try await socket.start("query Greeting { hello }")
        #expect(try await results.first()?.status == 200)
        span.ended(.completed)

        let spans = socket.spans
        #expect(spans.count == 2)
        let server = try #require(spans.first { $0.kind == .server })
        let attempt = try #require(spans.first { $0.kind == .client })
        #expect(server.name == "query Greeting")
        #expect(attempt.parentSpanID == server.context.spanID)
        #expect(attempt.context.traceID.hex == clientTrace)
        #expect(server["gqlgate.upstream.attempts"] == .int(1))
        #expect(server["gqlgate.websocket.end"] == .string("completed"))
        #expect(server.events.isEmpty)
    }

    @Test func anErrorEndsTheSpanAsAnErrorOfItsCode() async throws {
        let socket = TracedSocket()
        let (span, _) = try await socket.start("subscription { ticks }")
        span.ended(.error, errors: [.object([("message", .string("lost")), ("extensions", .object([("code", .string("UPSTREAM_UNAVAILABLE"))]))])])
        let server = try #require(socket.spans.first)
        #expect(server.name == "subscription")
        #expect(server.status == .error)
        #expect(server["error.type"] == .string("UPSTREAM_UNAVAILABLE"))
    }

    @Test func theOperationsExtensionsThenConnectionInitThenTheUpgradeGiveTheParent() throws {
        var origin = TracedSocket().origin
        let request = GraphQLRequest(query: "{ hello }")
        #expect(origin.context(for: request).traceparent == upgradeParent)
        let fromInit = "00-\(String(repeating: "a", count: 32))-00000000000000aa-01"
        origin.initialised(payload: .object([("headers", .object([("Traceparent", .string(fromInit)), ("tracestate", .string("v=1"))]))]))
        #expect(origin.context(for: request) == (fromInit, "v=1"))
        origin.initialised(payload: .object([("authorization", .string("Bearer x"))]))  // no trace context: the connection's stays
        #expect(origin.context(for: request).traceparent == fromInit)
        let own = "00-\(String(repeating: "b", count: 32))-00000000000000bb-01"
        #expect(origin.context(for: GraphQLRequest(query: "{ hello }", extensions: .object([("traceparent", .string(own))]))) == (own, nil))
    }

    @Test func aClientsUnsampledTraceMakesNoSpan() {
        let tracer = Tracer(sampler: Sampler(ratio: 1), queue: SpanQueue(capacity: 10))
        let origin = WebSocketTraceOrigin(
            upgradeHeaders: ["traceparent": "00-\(clientTrace)-00f067aa0ba902b7-00"], path: "/graphql", subprotocol: "graphql-ws",
            clientAddress: nil)
        let operation = tracingRecorder(tracer).webSocketOperationBegins(GraphQLRequest(query: "{ hello }"), requestID: "r", origin: origin)
        #expect(operation.facts.span == nil)
        operation.ended(.completed)
        #expect(tracer.queue.count == 0)
    }

    @Test func reconnectsPastTheLimitAreCountedAsDroppedEvents() throws {
        let socket = TracedSocket()
        let span = socket.recorder.webSocketOperationBegins(GraphQLRequest(query: "subscription { ticks }"), requestID: "r", origin: socket.origin)
        for attempt in 1...(OperationRecord.mostReconnects + 3) {
            span.facts.record(.upstreamReconnecting(UpstreamReconnect(at: GatewayClock.system.monotonicNanoseconds(), attempt: attempt, reason: .closed)))
        }
        span.ended(.connectionClosed)
        let server = try #require(socket.spans.first)
        #expect(server.events.count == OperationRecord.mostReconnects)
        #expect(server.droppedEventsCount == 3)
        #expect(server["gqlgate.websocket.end"] == .string("connection_closed"))
        #expect(server.name == "GraphQL Operation")  // the document was never read
    }
}

private extension [UInt8] {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
