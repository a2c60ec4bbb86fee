import GQLGateCore
import GQLGateExchanges
@testable import GQLGatePipeline
import Testing

@Suite struct DocumentExchangeTests {
    @Test func recordsTheDocumentAndKindForNext() async throws {
        let cache = DocumentCache()
        let next = RecordingNext()
        let result = await outcome(of: DocumentExchange(cache: cache), operation("query Q { a } mutation M { b }", operationName: "M"),
                                   next: next)
        #expect(result == "200 upstream")
        #expect(next.trace == ["next: mutation M"])
        let passed = try #require(next.operations.first)
        #expect(passed.kind == .mutation)
        #expect(passed.selected?.name == "M")
        #expect(passed.selected?.kind == .mutation)
        #expect(passed.document === (try cache.analyse("query Q { a } mutation M { b }")))
        #expect(passed.document?.operations.count == 2)
    }

    @Test func queriesMutationsAndSubscriptionsAreAllForwarded() async {
        let next = RecordingNext()
        let exchange = DocumentExchange(cache: DocumentCache())
        for text in ["{ a }", "mutation { b }", "subscription S { c }"] {
            _ = await outcome(of: exchange, operation(text), next: next)
        }
        #expect(next.trace == ["next: query anonymous", "next: mutation anonymous", "next: subscription S"])
    }

    @Test func leavesTheClientsBodyUntouched() async throws {
        let next = RecordingNext()
        let body = #"{ "query" : "{ a }" }"#
        _ = await outcome(of: DocumentExchange(cache: DocumentCache()), operation("{ a }", body: body), next: next)
        #expect(try #require(next.operations.first).upstreamBody().string == body)
    }

    @Test func parsesEachDistinctTextOnce() async {
        let cache = DocumentCache()
        let next = RecordingNext()
        for _ in 0..<3 { _ = await outcome(of: DocumentExchange(cache: cache), operation("{ a }"), next: next) }
        #expect(next.trace.count == 3)
        #expect(cache.parseCount == 1)
    }

    @Test func missingQueryIsBadRequestAndNotForwarded() async throws {
        let next = RecordingNext()
        do {
            _ = try await DocumentExchange(cache: DocumentCache()).handle(operation(nil), next: next.next)
            Issue.record("an operation without a query was forwarded")
        } catch let error as GatewayError {
            #expect(error.status == 400)
            #expect(error.code == "BAD_REQUEST")
            #expect(error.message.contains("\"query\""))
        }
        #expect(next.trace.isEmpty)
    }

    @Test(arguments: [
        ("", nil, "400 BAD_REQUEST"),
        ("{ a", nil, "400 GRAPHQL_PARSE_FAILED"),
        ("query A { a } query B { b }", "C", "400 BAD_REQUEST"),
        ("query A { a } query B { b }", nil, "400 BAD_REQUEST"),
        ("fragment F on Query { a }", nil, "400 BAD_REQUEST"),
    ] as [(String, String?, String)])
    func badDocumentsAreAnsweredAndNotForwarded(query: String, operationName: String?, expected: String) async {
        let next = RecordingNext()
        let result = await outcome(of: DocumentExchange(cache: DocumentCache()), operation(query, operationName: operationName), next: next)
        #expect(result == expected)
        #expect(next.trace.isEmpty)
    }
}

@Suite struct DocumentExchangeGivenAnalysisTests {
    @Test func anAnalysisGivenWithTheTextIsUsedWithoutALookUpAndAnotherTextsIsNot() async throws {
        let elsewhere = DocumentCache(capacity: 4)
        let given = try elsewhere.analyse("query Given { a }")
        let cache = DocumentCache(capacity: 4)
        let exchange = DocumentExchange(cache: cache)
        var same = operation("query Given { a }")
        same.document = given
        #expect(try exchange.decide(&same).passesOn)
        #expect(same.document === given && same.selected?.name == "Given")
        #expect(cache.parseCount == 0)

        var changed = operation("query Other { b }")
        changed.document = given
        #expect(try !exchange.decide(&changed).passesOn)
        let next = RecordingNext()
        #expect(await outcome(of: exchange, changed, next: next) == "200 upstream")
        #expect(next.trace == ["next: query Other"])
        #expect(cache.parseCount == 1)
    }
}

extension InlineDecision {
    /// Whether the stage passed the operation on.
    var passesOn: Bool {
        if case .passOn = self { true } else { false }
    }
}
