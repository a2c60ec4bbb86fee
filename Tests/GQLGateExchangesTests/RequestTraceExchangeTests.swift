import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import Testing

@Suite struct RequestTraceExchangeTests {
    private func analysed(_ query: String, name: String?, trace: RequestTrace?) throws -> Operation {
        var op = Operation(
            request: GraphQLRequest(query: query, operationName: name), clientTransport: .httpPost,
            headers: [:], requestID: "req-1", trace: trace)
        op.selected = try DocumentCache().analyse(query).selectOperation(named: name)
        return op
    }

    @Test func notesTheSelectedOperationInTheOperationsTrace() throws {
        let trace = RequestTrace()
        var op = try analysed("query A { a } mutation B { b }", name: "B", trace: trace)
        RequestTraceExchange().prepare(&op)
        #expect(trace.snapshot.kind == .mutation)
        #expect(trace.snapshot.operationName == "B")
        #expect(trace.snapshot.attempts == 0)
    }

    @Test func anOperationWithoutATraceIsLeftAsItIs() throws {
        var op = try analysed("{ a }", name: nil, trace: nil)
        RequestTraceExchange().prepare(&op)
        #expect(op.trace == nil)
        #expect(op.kind == .query)
    }

    @Test func copiesOfAnOperationShareItsTrace() throws {
        let trace = RequestTrace()
        let op = try analysed("{ a }", name: nil, trace: trace)
        let retried = op
        retried.trace?.upstreamAttemptStarted()
        op.trace?.upstreamAttemptStarted()
        #expect(trace.snapshot.attempts == 2)
    }
}
