import GQLGateCore
import GQLGatePipeline
import Testing

/// Answers at once the queries that contain `hit`, as the memory cache does
/// its fresh answers; anything else it leaves to `handle`, on a loop, which
/// records the operation and asks the rest.
private struct HitAnswering: InlineExchange {
    let trace: Trace

    func decide(_ operation: inout Operation) -> InlineDecision {
        guard operation.request.query?.contains("hit") == true else { return .onLoop }
        trace.record("at once: \(operation.request.query ?? "-")")
        return .answer(response("cached", source: .cache))
    }

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        trace.record("cache handle: \(operation.request.query ?? "-")")
        return try await next(operation)
    }
}

/// A stage that cannot decide at once (as the document stage with a document not seen yet).
private struct LoopOnlyStage: InlineExchange {
    let trace: Trace

    func decide(_ operation: inout Operation) -> InlineDecision { .onLoop }

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        trace.record("loop stage")
        return try await next(operation)
    }
}

/// Runs `query` through `chain`'s head, which must not answer it, then the rest from where the head stopped: the first result.
private func resumedAnswer(_ chain: ExchangeChain, _ query: String) async throws -> GraphQLResponse? {
    var sent = operation(query)
    guard case .goOn(let position) = try chain.runAtOnce(&sent) else {
        Issue.record("expected the chain to go on")
        return nil
    }
    return try await chain.resume(sent, at: position).first()
}

/// The inline head of a chain (`runAtOnce`) and the rest run from where it stopped (`resume`).
@Suite struct ExchangeChainAtOnceTests {
    @Test func theHeadAnswersAHitAndNothingAfterItRuns() throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.inline(MarkingStage(name: "s1", trace: trace)), .inline(HitAnswering(trace: trace)), .exchange(TracingExchange(name: "a", trace: trace))],
            transport: FakeTransport(trace: trace))
        var sent = operation("{ hit }")
        guard case .answered(let answer) = try chain.runAtOnce(&sent) else {
            Issue.record("expected an answer at once")
            return
        }
        #expect(answer.body.string == "cached")
        #expect(trace.recorded == ["s1 stage: { hit }", "at once: { hit } s1"])
    }

    @Test func aMissGoesOnFromTheAnsweringExchangeAndEveryStageRunsOnce() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.inline(MarkingStage(name: "s1", trace: trace)), .inline(HitAnswering(trace: trace)), .inline(MarkingStage(name: "s2", trace: trace))],
            transport: FakeTransport(trace: trace))
        let result = try await resumedAnswer(chain, "{ miss }")
        #expect(result?.body.string == "upstream")
        #expect(trace.recorded == [
            "s1 stage: { miss }", "cache handle: { miss } s1", "s2 stage: { miss } s1",
            #"transport: { miss } s1 s2 body {"query":"{ miss } s1 s2"}"#,
        ])
    }

    @Test func theHeadEndsAtTheFirstPlainExchange() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.inline(MarkingStage(name: "s1", trace: trace)), .exchange(TracingExchange(name: "a", trace: trace)), .inline(HitAnswering(trace: trace))],
            transport: FakeTransport(trace: trace))
        var sent = operation("{ hit }")
        guard case .goOn(let position) = try chain.runAtOnce(&sent) else {
            Issue.record("expected the chain to go on")
            return
        }
        #expect(trace.recorded == ["s1 stage: { hit }"])
        // Past the plain exchange, on a loop, the inline stage still decides first: the hit is answered there.
        let answer = try await chain.resume(sent, at: position).first()
        #expect(answer?.body.string == "cached+a")
        #expect(trace.recorded == ["s1 stage: { hit }", "a down: { hit } s1", "at once: { hit } s1", "a up: cached"])
    }

    @Test func aStageThatCannotDecideAtOnceRunsOnTheLoopInstead() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.inline(MarkingStage(name: "s1", trace: trace)), .inline(LoopOnlyStage(trace: trace)), .inline(HitAnswering(trace: trace))],
            transport: FakeTransport(trace: trace))
        var sent = operation("{ hit }")
        guard case .goOn(let position) = try chain.runAtOnce(&sent) else {
            Issue.record("expected the chain to go on")
            return
        }
        #expect(trace.recorded == ["s1 stage: { hit }"])
        let answer = try await chain.resume(sent, at: position).first()
        #expect(answer?.body.string == "cached")
        #expect(trace.recorded == ["s1 stage: { hit }", "loop stage", "at once: { hit } s1"])
    }

    @Test func aStageThatThrowsInTheHeadAnswersWithItsError() {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.inline(MarkingStage(name: "s1", trace: trace, refuseOn: "bad")), .inline(HitAnswering(trace: trace))],
            transport: FakeTransport(trace: trace))
        var sent = operation("{ bad hit }")
        #expect(throws: GatewayError.badRequest("s1 refused")) { try chain.runAtOnce(&sent) }
        #expect(trace.recorded == ["s1 stage: { bad hit }"])
    }

    @Test func aWholeRunDecidesInlineStagesInTurn() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.inline(MarkingStage(name: "s1", trace: trace)), .inline(HitAnswering(trace: trace)), .inline(MarkingStage(name: "s2", trace: trace))],
            transport: FakeTransport(trace: trace))
        let hit = try await chain.run(operation("{ hit }")).first()
        #expect(hit?.body.string == "cached")
        let miss = try await chain.run(operation("{ miss }")).first()
        #expect(miss?.body.string == "upstream")
        #expect(trace.recorded == [
            "s1 stage: { hit }", "at once: { hit } s1",
            "s1 stage: { miss }", "cache handle: { miss } s1", "s2 stage: { miss } s1",
            #"transport: { miss } s1 s2 body {"query":"{ miss } s1 s2"}"#,
        ])
    }
}
