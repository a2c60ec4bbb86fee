@testable import GQLGate
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateTracing
import Testing

/// The upstream of a subscription: its results come through a channel the test feeds.
private final class ChannelUpstream: Transport, Sendable {
    let channel = ResultChannel(bufferLimit: 16)

    func send(_ operation: Operation) async throws -> ResultStream {
        ResultStream(channel)
    }
}

/// What the client received: each result's body, then "end".
private final class Received: Sendable {
    let events = Lock<[String]>([])
}

@Suite struct TracingSubscriptionSpanTests {
    /// Runs a subscription through `upstream` as the endpoint runs a streamed answer: the whole pipeline, recorded.
    private func subscribe(_ tracer: Tracer, _ upstream: ChannelUpstream) async throws -> (ResultChannel, Received) {
        let chain = ExchangeChain(stages: [.inline(DocumentExchange(cache: DocumentCache()))], transport: upstream)
        let recorder = tracingRecorder(tracer)
        let operation = Operation(
            request: GraphQLRequest(query: "subscription Ticks { ticks }"), clientTransport: .httpPost, delivery: .serverSentEvents,
            headers: [:], requestID: "sub-1", originalBody: nil, facts: OperationRecord(startedAt: GatewayClock.system.monotonicNanoseconds(), recorder: recorder))
        let results = try await recorder.watch(operation) { try await chain.run($0) }
        let channel = try #require(results.channel)
        let received = Received()
        channel.consume { event in
            let text = if case .result(let response) = event { response.body.string } else { "end" }
            received.events.withLock { $0.append(text) }
            return true
        }
        return (channel, received)
    }

    @Test func aSubscriptionsSpanEndsWhenItsResultsEnd() async throws {
        let tracer = Tracer(sampler: Sampler(ratio: 1), queue: SpanQueue(capacity: 10))
        let upstream = ChannelUpstream()
        let (_, received) = try await subscribe(tracer, upstream)
        _ = upstream.channel.yield(GraphQLResponse(status: 200, headers: [:], body: Bytes("tick 1"), source: .upstream))
        #expect(tracer.queue.count == 0)
        upstream.channel.finish()
        #expect(received.events.withLock { $0 } == ["tick 1", "end"])
        let spans = tracer.queue.take(upTo: 10)
        #expect(spans.count == 1)
        #expect(spans.first?.kind == .server)
        #expect(spans.first?["graphql.operation.type"] == .string("subscription"))
    }

    @Test func aSubscriptionsSpanEndsOnceWhenTheClientLeaves() async throws {
        let tracer = Tracer(sampler: Sampler(ratio: 1), queue: SpanQueue(capacity: 10))
        let upstream = ChannelUpstream()
        let cancelled = Lock(false)
        upstream.channel.setOnTermination { cancelled.withLock { $0 = true } }
        let (channel, _) = try await subscribe(tracer, upstream)
        channel.cancel()
        upstream.channel.finish()
        #expect(cancelled.withLock { $0 })
        #expect(tracer.queue.take(upTo: 10).count == 1)
    }
}
