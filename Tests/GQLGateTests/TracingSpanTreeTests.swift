@testable import GQLGate
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
import GQLGateHTTPClient
import GQLGateMetrics
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateTracing
import Logging
import Testing

/// The upstream: answers each attempt with the next status of its script
/// and keeps the header fields each attempt was sent with; states each
/// attempt, as `HTTPTransport` does (`Operation.upstreamAttempt`).
private final class ScriptedUpstream: Transport, Sendable {
    private let state: Lock<(statuses: [Int], sent: [HTTPHeaders])>

    init(_ statuses: [Int]) {
        state = Lock((statuses, []))
    }

    var sent: [HTTPHeaders] { state.withLock { $0.sent } }

    func send(_ operation: Operation) async throws -> ResultStream {
        .single(try await operation.upstreamAttempt { sent in
            let status = state.withLock { state in
                state.sent.append(sent.upstreamHeaders)
                return state.statuses.count > 1 ? state.statuses.removeFirst() : state.statuses[0]
            }
            return GraphQLResponse(status: status, headers: [:], body: Bytes("{}"), source: .upstream)
        })
    }
}

/// Answers queries containing `cached`, as the memory cache does a fresh
/// entry: at once when the head reaches it, else on the way; counts the
/// answers given at once.
private final class FreshCache: InlineExchange, Sendable {
    let answeredAtOnce = Lock(0)

    func decide(_ operation: inout Operation) -> InlineDecision {
        guard let hit = hit(operation) else { return .onLoop }
        answeredAtOnce.withLock { $0 += 1 }
        return .answer(hit)
    }

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        if let hit = hit(operation) { return .single(hit) }
        return try await next(operation)
    }

    private func hit(_ operation: Operation) -> GraphQLResponse? {
        guard operation.request.query?.contains("cached") == true else { return nil }
        operation.record(.cacheServed(.hit))
        return GraphQLResponse(status: 200, headers: [:], body: Bytes("{}"), source: .cache)
    }
}

/// The request log the recorder writes: metrics only, no access lines.
let unloggedRequests = RequestLog(metrics: GatewayMetrics(), sink: .logger(Logger(label: "test")))

/// A loop for the test recorders' readiness (which never probes).
private let recorderLoops = EventLoopGroup(count: 1)

/// The gateway's recorder with tracing on, as a generation makes it, for an upstream at `upstream`.
func tracingRecorder(_ tracer: Tracer, upstream: String = "http://user:pw@api.internal:4000/graphql") -> GatewayRecorder {
    var config = GatewayConfig()
    config.upstream.url = upstream
    return GatewayRecorder(metrics: GatewayMetrics(), readiness: Readiness(client: HTTPClient(group: recorderLoops)), log: unloggedRequests,
                           tracing: (tracer, config), logger: Logger(label: "test"))
}

private let clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
private let clientSpan = "00f067aa0ba902b7"

/// A pipeline with tracing on, as the gateway assembles it, in front of `upstream`.
private struct TracedPipeline {
    let tracer: Tracer
    let upstream: ScriptedUpstream
    let cache = FreshCache()
    let chain: ExchangeChain
    let recorder: GatewayRecorder

    init(upstream statuses: [Int] = [200], ratio: Double = 1, limit: ConcurrencyLimit? = nil) {
        upstream = ScriptedUpstream(statuses)
        let tracer = Tracer(sampler: Sampler(ratio: ratio), queue: SpanQueue(capacity: 100))
        self.tracer = tracer
        recorder = tracingRecorder(tracer)
        chain = ExchangeChain(
            stages: [
                .inline(DocumentExchange(cache: DocumentCache())), .inline(cache),
                .exchange(RetryExchange(policy: RetryPolicy(baseDelay: .milliseconds(1)), budget: RetryBudget(ratio: 1), sleep: { _ in })),
            ] + (limit.map { [.exchange(UpstreamConcurrencyExchange(limit: $0))] } ?? []),
            transport: upstream)
    }

    /// Runs `query` as the endpoint does (the head at once, then the rest): the status answered.
    func run(_ query: String, headers: HTTPHeaders = [:], variables: JSONValue? = nil) async throws -> Int {
        var operation = Operation(
            request: GraphQLRequest(query: query, variables: variables), clientTransport: .httpPost, headers: headers, requestID: "req-1",
            originalBody: nil, facts: OperationRecord(startedAt: GatewayClock.system.monotonicNanoseconds(), recorder: recorder))
        let position: ExchangeChain.Position
        do {
            switch try chain.runAtOnce(&operation) {
            case .answered(let answer):
                recorder.answeredAtOnce(operation, .success(answer))
                return answer.status
            case .goOn(let next): position = next
            }
        } catch {
            recorder.answeredAtOnce(operation, .failure(error))
            throw error
        }
        return try await recorder.watch(operation) { try await chain.resume($0, at: position) }.first()?.status ?? 0
    }

    var spans: [SpanRecord] { tracer.queue.take(upTo: 100) }
}

private func attribute(_ span: SpanRecord?, _ key: String) -> SpanAttribute.Value? {
    span?[key]
}

@Suite struct TracingSpanTreeTests {
    @Test func aProxiedQueryIsAServerSpanOverOneAttemptUnderTheClientsTrace() async throws {
        let pipeline = TracedPipeline()
        let status = try await pipeline.run(
            "query Books { books { id } }", headers: ["traceparent": "00-\(clientTrace)-\(clientSpan)-01", "tracestate": "v=1"])
        #expect(status == 200)
        let spans = pipeline.spans
        #expect(spans.count == 2)
        let server = try #require(spans.first { $0.kind == .server })
        let attempt = try #require(spans.first { $0.kind == .client })
        #expect(server.context.traceID.hex == clientTrace)
        #expect(server.parentSpanID == 0x00f0_67aa_0ba9_02b7)
        #expect(attempt.context.traceID == server.context.traceID)
        #expect(attempt.parentSpanID == server.context.spanID)
        #expect(server.name == "POST /graphql")
        #expect(attribute(server, "graphql.operation.type") == .string("query"))
        #expect(attribute(server, "graphql.operation.name") == .string("Books"))
        #expect(attribute(server, "graphql.document.sha256") == .string(DocumentCache.digest(of: "query Books { books { id } }").hexString))
        #expect(attribute(server, "http.response.status_code") == .int(200))
        #expect(attribute(attempt, "gqlgate.upstream.attempt") == .int(1))
        #expect(attribute(attempt, "gqlgate.upstream.outcome") == .string("answered"))
        #expect(attribute(attempt, "url.full") == .string("http://api.internal:4000/graphql"))
        #expect(attribute(attempt, "server.port") == .int(4000))
        let sent = try #require(pipeline.upstream.sent.first)
        #expect(sent["traceparent"] == attempt.context.traceparent)
        #expect(sent["tracestate"] == "v=1")
    }

    @Test func aRetriedQueryHasOneAttemptSpanPerAttemptEachSendingItsOwnTraceparent() async throws {
        let pipeline = TracedPipeline(upstream: [503, 200])
        #expect(try await pipeline.run("{ hello }") == 200)
        let spans = pipeline.spans
        let server = try #require(spans.first { $0.kind == .server })
        let attempts = spans.filter { $0.kind == .client }
        #expect(spans.count == 3)
        #expect(server.parentSpanID == 0)
        #expect(attempts.allSatisfy { $0.parentSpanID == server.context.spanID })
        #expect(attempts.map { attribute($0, "gqlgate.upstream.attempt") } == [.int(1), .int(2)])
        #expect(attempts.map { attribute($0, "gqlgate.upstream.outcome") } == [.string("error_status"), .string("answered")])
        #expect(attempts.map(\.status) == [.error, .unset])
        #expect(attribute(attempts[1], "http.request.resend_count") == .int(1))
        #expect(attribute(server, "gqlgate.upstream.attempts") == .int(2))
        #expect(pipeline.upstream.sent.map { $0["traceparent"] } == attempts.map { $0.context.traceparent })
    }

    @Test func aCacheHitIsOneServerSpanWhetherAnsweredOnTheWayOrAtOnce() async throws {
        let pipeline = TracedPipeline()
        // The cache decides at once both times: first on the loop the new document was parsed on, then on the server thread.
        for answeredAtOnce in [1, 2] {
            #expect(try await pipeline.run("query Hit { cached }", headers: ["traceparent": "00-\(clientTrace)-\(clientSpan)-01"]) == 200)
            #expect(pipeline.cache.answeredAtOnce.withLock { $0 } == answeredAtOnce)
            let spans = pipeline.spans
            #expect(spans.count == 1)
            #expect(spans.first?.kind == .server)
            #expect(attribute(spans.first, "gqlgate.cache.status") == .string("HIT"))
            #expect(attribute(spans.first, "graphql.operation.name") == .string("Hit"))
            #expect(spans.first?.parentSpanID == 0x00f0_67aa_0ba9_02b7)
        }
        #expect(pipeline.upstream.sent.isEmpty)
    }

    @Test func aClientsUnsampledTraceMakesNoSpanAndAddsNoHeader() async throws {
        let pipeline = TracedPipeline()
        #expect(try await pipeline.run("{ hello }", headers: ["traceparent": "00-\(clientTrace)-\(clientSpan)-00"]) == 200)
        #expect(pipeline.spans.isEmpty)
        #expect(pipeline.upstream.sent.first?.contains("traceparent") == false)
    }

    @Test func ratioZeroSamplesNoNewTrace() async throws {
        let pipeline = TracedPipeline(ratio: 0)
        #expect(try await pipeline.run("{ hello }") == 200)
        #expect(pipeline.spans.isEmpty)
    }

    @Test func variablesAndHeaderValuesNeverReachASpan() async throws {
        let pipeline = TracedPipeline()
        let secret = "s3cr3t-value"
        _ = try await pipeline.run(
            "query Q($token: String) { hello(name: $token) }",
            headers: ["authorization": "Bearer \(secret)", "x-api-key": secret, "cookie": "session=\(secret)"],
            variables: .object([("token", .string(secret))]))
        let spans = pipeline.spans
        #expect(spans.count == 2)
        for span in spans {
            for attribute in span.attributes {
                if case .string(let text) = attribute.value { #expect(!text.contains(secret), "\(attribute.key)") }
            }
        }
    }

    @Test func aWaitForAnUpstreamPlaceIsASpanBeforeTheAttempt() async throws {
        let limit = ConcurrencyLimit(limit: 1, queueTimeout: .seconds(30))
        let pipeline = TracedPipeline(limit: limit)
        try await limit.acquire()  // the one place, held until the request waits for it
        let request = Task { try await pipeline.run("{ hello }") }
        while limit.waiters == 0 { await Task.yield() }
        let queued = GatewayClock.system.monotonicNanoseconds()
        while GatewayClock.system.monotonicNanoseconds() - queued < 2 * OperationRecord.shortestWait { await Task.yield() }
        limit.release()
        #expect(try await request.value == 200)
        let spans = pipeline.spans
        let server = try #require(spans.first { $0.kind == .server })
        let wait = try #require(spans.first { $0.kind == .internal })
        let attempt = try #require(spans.first { $0.kind == .client })
        #expect(spans.count == 3)
        #expect(wait.name == "upstream queue wait")
        #expect(wait.parentSpanID == server.context.spanID)
        #expect(wait.endUnixNano - wait.startUnixNano >= OperationRecord.shortestWait)
        #expect(wait.endUnixNano <= attempt.startUnixNano)
    }

    @Test func aFreePlaceMakesNoWaitSpan() async throws {
        let pipeline = TracedPipeline(limit: ConcurrencyLimit(limit: 1, queueTimeout: .seconds(30)))
        #expect(try await pipeline.run("{ hello }") == 200)
        #expect(pipeline.spans.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.server, .client])
    }
}
