@testable import GQLGate
import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
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
    private func subscribe(_ chain: ExchangeChain) async throws -> (ResultChannel, Received) {
        var operation = Operation(
            request: GraphQLRequest(query: "subscription Ticks { ticks }"), clientTransport: .httpPost, delivery: .serverSentEvents,
            headers: [:], requestID: "sub-1", trace: RequestTrace(startedAt: GatewayClock.system.monotonicNanoseconds()))
        guard case .goOn(let position) = try chain.runAtOnce(&operation) else { throw GatewayError.noResult }
        let results = try await chain.resume(operation, at: position)
        let channel = try #require(results.channel)
        let received = Received()
        channel.consume { event in
            let text = if case .result(let response) = event { response.body.string } else { "end" }
            received.events.withLock { $0.append(text) }
            return true
        }
        return (channel, received)
    }

    private func chain(_ tracer: Tracer, _ upstream: ChannelUpstream) -> ExchangeChain {
        ExchangeChain(
            exchanges: [TracingExchange(tracer: tracer, path: "/graphql", requestLog: unloggedRequests, identifiesClientKeys: false), DocumentExchange(cache: DocumentCache()), RequestTraceExchange()],
            transport: upstream)
    }

    @Test func aSubscriptionsSpanEndsWhenItsResultsEnd() async throws {
        let tracer = Tracer(sampler: Sampler(ratio: 1), queue: SpanQueue(capacity: 10))
        let upstream = ChannelUpstream()
        let (_, received) = try await subscribe(chain(tracer, upstream))
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
        let (channel, _) = try await subscribe(chain(tracer, upstream))
        channel.cancel()
        upstream.channel.finish()
        #expect(cancelled.withLock { $0 })
        #expect(tracer.queue.take(upTo: 10).count == 1)
    }
}
