import GQLGateCore
import GQLGatePipeline
import Testing

/// Records what passes down and up, and tags results with its name on the way up.
struct TracingExchange: Exchange {
    let name: String
    let trace: Trace

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        trace.record("\(name) down: \(operation.request.query ?? "-")")
        let results: ResultStream
        do {
            results = try await next(operation)
        } catch {
            trace.record("\(name) saw error: \(error)")
            throw error
        }
        let name = name, trace = trace
        return results.map { result in
            trace.record("\(name) up: \(result.body.string)")
            return response(result.body.string + "+\(name)", status: result.status)
        }
    }
}

/// Answers every operation itself, as a cache hit would.
private struct AnsweringExchange: Exchange {
    let trace: Trace

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        trace.record("answer: \(operation.request.query ?? "-")")
        return .single(response("cached", source: .cache))
    }
}

/// Rewrites the query before passing the operation on: takes the operation
/// over (`consuming`), changes it in place and hands it down.
private struct RewritingExchange: Exchange {
    func handle(_ operation: consuming Operation, next: ExchangeNext) async throws -> ResultStream {
        operation.request.query = "{ rewritten }"
        operation.headers.add(name: "X-Rewritten", value: "yes")
        return try await next(consume operation)
    }
}

/// Refuses every operation.
private struct RefusingExchange: Exchange {
    let trace: Trace

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        trace.record("refuse")
        throw GatewayError.badRequest("refused")
    }
}

/// A stage that records the query it sees, appends its name to it, and
/// refuses queries that contain `refuseOn`.
struct MarkingStage: InlineExchange {
    let name: String
    let trace: Trace
    var refuseOn: String?

    func decide(_ operation: inout Operation) throws -> InlineDecision {
        let query = operation.request.query ?? "-"
        trace.record("\(name) stage: \(query)")
        if let refuseOn, query.contains(refuseOn) { throw GatewayError.badRequest("\(name) refused") }
        operation.request.query = query + " \(name)"
        return .passOn
    }
}

/// The end of the chain: records each operation and answers `upstream`, or throws `error`.
struct FakeTransport: Transport {
    let trace: Trace
    var error: GatewayError?

    func send(_ operation: Operation) async throws -> ResultStream {
        let header = operation.headers["X-Rewritten"].map { " [X-Rewritten: \($0)]" } ?? ""
        trace.record("transport: \(operation.request.query ?? "-")\(header) body \(operation.upstreamBody().string)")
        if let error { throw error }
        return .single(response("upstream"))
    }
}

@Suite struct ExchangeChainTests {
    @Test func operationsGoDownInOrderAndResultsComeUpInReverse() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.exchange(TracingExchange(name: "a", trace: trace)), .exchange(TracingExchange(name: "b", trace: trace))],
            transport: FakeTransport(trace: trace))
        let result = try await chain.run(operation("{ a }", body: #"{"query":"{ a }"}"#)).first()
        #expect(result?.body.string == "upstream+b+a")
        #expect(trace.recorded == [
            "a down: { a }", "b down: { a }", #"transport: { a } body {"query":"{ a }"}"#, "b up: upstream", "a up: upstream+b",
        ])
    }

    @Test func withoutExchangesTheTransportAnswers() async throws {
        let trace = Trace()
        let result = try await ExchangeChain(stages: [], transport: FakeTransport(trace: trace)).run(operation("{ a }")).first()
        #expect(result?.body.string == "upstream")
        #expect(trace.recorded == [#"transport: { a } body {"query":"{ a }"}"#])
    }

    @Test func anExchangeCanAnswerWithoutCallingNext() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.exchange(TracingExchange(name: "a", trace: trace)), .exchange(AnsweringExchange(trace: trace)), .exchange(TracingExchange(name: "b", trace: trace))],
            transport: FakeTransport(trace: trace))
        let result = try #require(try await chain.run(operation("{ a }")).first())
        #expect(result.body.string == "cached+a")
        #expect(trace.recorded == ["a down: { a }", "answer: { a }", "a up: cached"])
    }

    @Test func anExchangeCanChangeTheOperationForTheRest() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.exchange(TracingExchange(name: "a", trace: trace)), .exchange(RewritingExchange()), .exchange(TracingExchange(name: "b", trace: trace))],
            transport: FakeTransport(trace: trace))
        _ = try await chain.run(operation("{ a }", body: #"{ "query": "{ a }" }"#)).first()
        #expect(trace.recorded == [
            "a down: { a }", "b down: { rewritten }", #"transport: { rewritten } [X-Rewritten: yes] body {"query":"{ rewritten }"}"#,
            "b up: upstream", "a up: upstream+b",
        ])
    }

    @Test func transportErrorsPropagateThroughEveryExchange() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.exchange(TracingExchange(name: "a", trace: trace)), .exchange(TracingExchange(name: "b", trace: trace))],
            transport: FakeTransport(trace: trace, error: .upstreamTimeout("slow")))
        await #expect(throws: GatewayError.upstreamTimeout("slow")) { try await chain.run(operation("{ a }")) }
        #expect(trace.recorded == [
            "a down: { a }", "b down: { a }", #"transport: { a } body {"query":"{ a }"}"#,
            "b saw error: 504 UPSTREAM_TIMEOUT: slow", "a saw error: 504 UPSTREAM_TIMEOUT: slow",
        ])
    }

    @Test func anExchangeErrorStopsTheOperation() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [.exchange(TracingExchange(name: "a", trace: trace)), .exchange(RefusingExchange(trace: trace)), .exchange(TracingExchange(name: "b", trace: trace))],
            transport: FakeTransport(trace: trace))
        await #expect(throws: GatewayError.badRequest("refused")) { try await chain.run(operation("{ a }")) }
        #expect(trace.recorded == ["a down: { a }", "refuse", "a saw error: 400 BAD_REQUEST: refused"])
    }

    @Test func oneChainRunsManyOperations() async throws {
        let trace = Trace()
        let chain = ExchangeChain(stages: [.exchange(TracingExchange(name: "a", trace: trace))], transport: FakeTransport(trace: trace))
        for query in ["{ one }", "{ two }"] { _ = try await chain.run(operation(query)).first() }
        #expect(trace.recorded == [
            "a down: { one }", #"transport: { one } body {"query":"{ one }"}"#, "a up: upstream",
            "a down: { two }", #"transport: { two } body {"query":"{ two }"}"#, "a up: upstream",
        ])
    }

    @Test func stagesInARowRunInOrderBetweenExchanges() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [
                .inline(MarkingStage(name: "s1", trace: trace)), .inline(MarkingStage(name: "s2", trace: trace)), .exchange(TracingExchange(name: "a", trace: trace)),
                .inline(MarkingStage(name: "s3", trace: trace)),
                ],
            transport: FakeTransport(trace: trace))
        let result = try await chain.run(operation("{ a }", body: #"{"query":"{ a }"}"#)).first()
        #expect(result?.body.string == "upstream+a")
        #expect(trace.recorded == [
            "s1 stage: { a }", "s2 stage: { a } s1", "a down: { a } s1 s2", "s3 stage: { a } s1 s2",
            #"transport: { a } s1 s2 s3 body {"query":"{ a } s1 s2 s3"}"#, "a up: upstream",
        ])
    }

    @Test func aStageBetweenTwoExchangesRunsAfterTheFirstAndBeforeTheSecond() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [
                .exchange(TracingExchange(name: "a", trace: trace)), .inline(MarkingStage(name: "s1", trace: trace)), .exchange(TracingExchange(name: "b", trace: trace)),
                ],
            transport: FakeTransport(trace: trace))
        let result = try await chain.run(operation("{ a }", body: #"{"query":"{ a }"}"#)).first()
        #expect(result?.body.string == "upstream+b+a")
        #expect(trace.recorded == [
            "a down: { a }", "s1 stage: { a }", "b down: { a } s1",
            #"transport: { a } s1 body {"query":"{ a } s1"}"#, "b up: upstream", "a up: upstream+b",
        ])
    }

    @Test func aStageThatThrowsAnswersAndTheRestNeverRuns() async throws {
        let trace = Trace()
        let chain = ExchangeChain(
            stages: [
                .exchange(TracingExchange(name: "a", trace: trace)), .inline(MarkingStage(name: "s1", trace: trace)),
                .inline(MarkingStage(name: "s2", trace: trace, refuseOn: "bad")), .inline(MarkingStage(name: "s3", trace: trace)),
                ],
            transport: FakeTransport(trace: trace))
        await #expect(throws: GatewayError.badRequest("s2 refused")) { try await chain.run(operation("{ bad }")) }
        #expect(trace.recorded == ["a down: { bad }", "s1 stage: { bad }", "s2 stage: { bad } s1", "a saw error: 400 BAD_REQUEST: s2 refused"])
    }

    @Test func aStageUsedAsAnExchangeBehavesTheSame() async throws {
        let trace = Trace()
        let stage = MarkingStage(name: "s", trace: trace)
        let result = try await stage.handle(operation("{ a }")) { operation in
            trace.record("next: \(operation.request.query ?? "-")")
            return .single(response("done"))
        }.first()
        #expect(result?.body.string == "done")
        #expect(trace.recorded == ["s stage: { a }", "next: { a } s"])
    }
}
