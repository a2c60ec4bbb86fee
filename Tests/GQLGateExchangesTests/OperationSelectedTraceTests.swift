import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import Testing

/// The document stage notes the operation it selected in the operation's trace.
@Suite struct OperationSelectedTraceTests {
    private func selected(_ query: String, name: String?, facts: OperationRecord?) throws -> Operation {
        var op = Operation(
            request: GraphQLRequest(query: query, operationName: name), clientTransport: .httpPost,
            headers: [:], requestID: "req-1", originalBody: nil, facts: facts)
        let decision = try DocumentExchange(cache: DocumentCache()).handleAtOnceOrParse(&op)
        #expect(decision)
        return op
    }

    @Test func notesTheSelectedOperationInTheOperationsTrace() throws {
        let trace = OperationRecord()
        _ = try selected("query A { a } mutation B { b }", name: "B", facts: trace)
        #expect(trace.snapshot.kind == .mutation)
        #expect(trace.snapshot.operationName == "B")
        #expect(trace.snapshot.documentSHA256?.count == 64)
        #expect(trace.snapshot.attempts == 0)
    }

    @Test func anOperationWithoutATraceIsLeftAsItIs() throws {
        let op = try selected("{ a }", name: nil, facts: nil)
        #expect(op.facts == nil)
        #expect(op.kind == .query)
    }

    @Test func copiesOfAnOperationShareItsTrace() throws {
        let trace = OperationRecord()
        let op = try selected("{ a }", name: nil, facts: trace)
        let retried = op
        _ = retried.facts?.upstreamAttemptBegins()
        _ = op.facts?.upstreamAttemptBegins()
        #expect(trace.snapshot.attempts == 2)
    }
}

extension DocumentExchange {
    /// `decide`, with the document analysed first when it is new (as `handle` would on a loop): whether it passed the operation on.
    fileprivate func handleAtOnceOrParse(_ operation: inout Operation) throws -> Bool {
        if case .onLoop = try decide(&operation), let query = operation.request.query {
            operation.document = try DocumentCache().analyse(query)
        }
        return try decide(&operation).passesOn
    }
}
