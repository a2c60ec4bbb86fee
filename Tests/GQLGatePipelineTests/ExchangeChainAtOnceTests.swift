import GQLGateCore
import GQLGatePipeline
import Testing

/// Answers at once the queries that contain `hit`, as the memory cache does
/// its fresh answers; through `handle` it records the operation and asks the rest.
private struct HitAnswering: AnswersAtOnce {
    let trace: Trace

    func answerAtOnce(_ operation: Operation) -> GraphQLResponse? {
        guard operation.request.query?.contains("hit") == true else { return nil }
        trace.record("at once: \(operation.request.query ?? "-")")
        return response("cached", source: .cache)
    }

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        trace.record("cache handle: \(operation.request.query ?? "-")")
        return try await next(operation)
    }
}

/// A stage that cannot run at once (as the document stage with a document not seen yet).
private struct LoopOnlyStage: OperationStage {
    let trace: Trace

    func prepare(_ operation: inout Operation) throws {
        trace.record("loop stage")
    }

    func prepareAtOnce(_ operation: inout Operation) throws -> Bool { false }
}

/// Notes each outcome it sees, as the request log does.
private struct OutcomeWatcher: AnswerWatcher {
    let trace: Trace

    func watch(_ operation: consuming Operation, _ rest: (consuming Operation) async throws -> ResultStream) async throws
        -> ResultStream {
        let query = operation.request.query ?? "-"
        do {
            let first = try await rest(operation).first()
            trace.record("watched: \(query) -> \(first?.body.string ?? "nothing")")
            return .single(first ?? response("nothing"))
        } catch {
            trace.record("watched: \(query) -> \(error)")
            throw error
        }
    }

    func answeredAtOnce(_ operation: borrowing Operation, _ outcome: Result<GraphQLResponse, any Error>) {
        let answer = switch outcome {
        case .success(let response): response.body.string
        case .failure(let error): "\(error)"
        }
        trace.record("at once, watched: \(operation.request.query ?? "-") -> \(answer)")
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

/// The synchronous head of a chain (`runAtOnce`) and the rest run from where it stopped (`resume`).
@Suite struct ExchangeChainAtOnceTests {
    @Test func theHeadAnswersAHitAndNothingAfterItRuns() throws {
        let trace = Trace()
        let chain = ExchangeChain(
            exchanges: [MarkingStage(name: "s1", trace: trace), HitAnswering(trace: trace), TracingExchange(name: "a", trace: trace)],
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
            exchanges: [MarkingStage(name: "s1", trace: trace), HitAnswering(trace: trace), MarkingStage(name: "s2", trace: trace)],
            transport: FakeTransport(trace: trace))
        let result = try await resumedAnswer(chain, "{ miss }")
        #expect(result?.body.string == "upstream")
        #expect(trace.recorded == [
            "s1 stage: { miss }", "cache handle: { miss } s1", "s2 stage: { miss } s1",
            #"transport: { miss } s1 s2 body {"query":"{ miss } s1 s2"}"#,
        ])
    }

    @Test func theHeadEndsAtTheFirstExchangeThatMustWait() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            exchanges: [MarkingStage(name: "s1", trace: trace), TracingExchange(name: "a", trace: trace), HitAnswering(trace: trace)],
            transport: FakeTransport(trace: trace))
        var sent = operation("{ hit }")
        guard case .goOn(let position) = try chain.runAtOnce(&sent) else {
            Issue.record("expected the chain to go on")
            return
        }
        #expect(trace.recorded == ["s1 stage: { hit }"])
        // The hit is answered on the way, by `handle`, with the exchange before it seeing it.
        _ = try await chain.resume(sent, at: position).first()
        #expect(trace.recorded.prefix(3) == ["s1 stage: { hit }", "a down: { hit } s1", "cache handle: { hit } s1"])
    }

    @Test func aStageThatCannotRunAtOnceRunsOnTheWayInstead() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            exchanges: [MarkingStage(name: "s1", trace: trace), LoopOnlyStage(trace: trace), HitAnswering(trace: trace)],
            transport: FakeTransport(trace: trace))
        _ = try await resumedAnswer(chain, "{ hit }")
        #expect(trace.recorded == [
            "s1 stage: { hit }", "loop stage", "cache handle: { hit } s1", #"transport: { hit } s1 body {"query":"{ hit } s1"}"#,
        ])
    }

    @Test func aStageThatThrowsInTheHeadAnswersWithItsError() {
        let trace = Trace()
        let chain = ExchangeChain(
            exchanges: [MarkingStage(name: "s1", trace: trace, refuseOn: "bad"), HitAnswering(trace: trace)],
            transport: FakeTransport(trace: trace))
        var sent = operation("{ bad hit }")
        #expect(throws: GatewayError.badRequest("s1 refused")) { try chain.runAtOnce(&sent) }
        #expect(trace.recorded == ["s1 stage: { bad hit }"])
    }

    @Test func aWatcherSeesAnAnswerGivenAtOnceOnce() throws {
        let trace = Trace()
        let chain = ExchangeChain(
            exchanges: [OutcomeWatcher(trace: trace), MarkingStage(name: "s1", trace: trace), HitAnswering(trace: trace)],
            transport: FakeTransport(trace: trace))
        var sent = operation("{ hit }")
        guard case .answered = try chain.runAtOnce(&sent) else {
            Issue.record("expected an answer at once")
            return
        }
        #expect(trace.recorded == ["s1 stage: { hit }", "at once: { hit } s1", "at once, watched: { hit } s1 -> cached"])
    }

    @Test func aWatcherSeesAnErrorThrownInTheHead() {
        let trace = Trace()
        let chain = ExchangeChain(
            exchanges: [OutcomeWatcher(trace: trace), MarkingStage(name: "s1", trace: trace, refuseOn: "bad"), HitAnswering(trace: trace)],
            transport: FakeTransport(trace: trace))
        var sent = operation("{ bad }")
        #expect(throws: GatewayError.badRequest("s1 refused")) { try chain.runAtOnce(&sent) }
        #expect(trace.recorded == ["s1 stage: { bad }", "at once, watched: { bad } -> 400 BAD_REQUEST: s1 refused"])
    }

    @Test func aWatcherTheHeadPassedWatchesTheResumedRun() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            exchanges: [OutcomeWatcher(trace: trace), MarkingStage(name: "s1", trace: trace), HitAnswering(trace: trace)],
            transport: FakeTransport(trace: trace))
        let result = try await resumedAnswer(chain, "{ miss }")
        #expect(result?.body.string == "upstream")
        #expect(trace.recorded == [
            "s1 stage: { miss }", "cache handle: { miss } s1", #"transport: { miss } s1 body {"query":"{ miss } s1"}"#,
            "watched: { miss } s1 -> upstream",
        ])
    }

    @Test func aWatcherSeesAWholeRunThroughHandle() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            exchanges: [OutcomeWatcher(trace: trace), MarkingStage(name: "s1", trace: trace, refuseOn: "bad")],
            transport: FakeTransport(trace: trace))
        await #expect(throws: GatewayError.badRequest("s1 refused")) { try await chain.run(operation("{ bad }")) }
        #expect(trace.recorded == ["s1 stage: { bad }", "watched: { bad } -> 400 BAD_REQUEST: s1 refused"])
    }
}
