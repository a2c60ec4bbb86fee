import GQLGateExchanges
import GQLGatePipeline
import Testing

@Suite struct QueryLimitsExchangeTests {
    private func run(_ query: String, limits: QueryLimitsExchange.Limits, maxDocumentBytes: Int = 64 * 1024) async -> String {
        let chain = ExchangeChain(
            stages: [.inline(DocumentExchange(cache: DocumentCache(), maxDocumentBytes: maxDocumentBytes)), .inline(QueryLimitsExchange(limits: limits))],
            transport: AnsweringTransport())
        do {
            _ = try await chain.run(Operation(request: GraphQLRequest(query: query), clientTransport: .httpPost, headers: [:], requestID: "r"))
            return "forwarded"
        } catch let error as GatewayError {
            return "\(error.status) \(error.code): \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test func operationsWithinTheLimitsAreForwarded() async {
        #expect(await run("{ a { b } x: c }", limits: .init(maxDepth: 2, maxAliases: 1)) == "forwarded")
    }

    @Test func tooDeepIsRefusedNamingTheLimitAndTheDepth() async {
        #expect(await run("{ a { b { c } } }", limits: .init(maxDepth: 2, maxAliases: 30))
            == "400 QUERY_TOO_COMPLEX: The operation is 3 levels deep; limits.max_depth allows 2.")
    }

    @Test func tooManyAliasesIsRefusedNamingTheLimitAndTheCount() async {
        #expect(await run("query { ...F ...F } fragment F on Q { a: x b: x }", limits: .init(maxDepth: 15, maxAliases: 3))
            == "400 QUERY_TOO_COMPLEX: The operation has 4 aliased fields (fragments expanded); limits.max_aliases allows 3.")
    }

    @Test func documentsOverTheSizeLimitAreRefusedBeforeParsing() async {
        let huge = "{ " + String(repeating: "a ", count: 100) + "} {"
        #expect(await run(huge, limits: .init(), maxDocumentBytes: 64)
            == "400 QUERY_TOO_COMPLEX: The document is \(huge.utf8.count) bytes; limits.max_document_bytes allows 64.")
    }
}

private struct AnsweringTransport: Transport {
    func send(_ operation: Operation) async throws -> ResultStream {
        .single(GraphQLResponse(status: 200, headers: [:], body: .empty, source: .upstream))
    }
}
