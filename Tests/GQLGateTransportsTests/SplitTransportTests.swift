import GQLGateCore
import GQLGatePipeline
import GQLGateTransports
import Testing

/// A transport that answers with its own name.
private struct NamedTransport: Transport {
    let name: String

    func send(_ operation: Operation) async throws -> ResultStream {
        .single(GraphQLResponse(status: 200, headers: [:], body: Bytes(name), source: .upstream))
    }
}

/// An operation of `kind`, analysed as `DocumentExchange` would.
private func analysedOperation(_ kind: OperationKind) throws -> Operation {
    let query = "\(kind.rawValue) { f }"
    var operation = Operation(request: GraphQLRequest(query: query), clientTransport: .httpPost, headers: [:], requestID: "req-1")
    operation.selected = try DocumentCache().analyse(query).selectOperation(named: nil)
    return operation
}

@Suite struct SplitTransportTests {
    @Test func subscriptionsGoOneWayQueriesAndMutationsTheOther() async throws {
        let split = SplitTransport(http: NamedTransport(name: "http"), subscriptions: NamedTransport(name: "websocket"))
        var routes: [String] = []
        for kind in [OperationKind.query, .mutation, .subscription] {
            routes.append(try await split.send(try analysedOperation(kind)).first()?.body.string ?? "-")
        }
        #expect(routes == ["http", "http", "websocket"])
    }
}
