import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import Testing

/// An operation of `kind` (nil: not analysed) as sent over `transport`.
private func operation(kind: OperationKind?, transport: ClientTransport) throws -> Operation {
    var op = operation("-", transport: transport)
    if let kind {
        op.selected = try DocumentCache().analyse("\(kind.rawValue) { f }").selectOperation(named: nil)
    }
    return op
}

@Suite struct HTTPMethodRulesExchangeTests {
    @Test func mutationOverGETIs405AllowPOSTAndNeverRuns() async throws {
        let next = RecordingNext()
        do {
            _ = try await HTTPMethodRulesExchange().handle(try operation(kind: .mutation, transport: .httpGet), next: next.next)
            Issue.record("a mutation over GET was forwarded")
        } catch let error as GatewayError {
            #expect(error.status == 405)
            #expect(error.code == "METHOD_NOT_ALLOWED")
            #expect(error.headers["Allow"] == "POST")
            #expect(error.message.contains("POST"))
            #expect(error.response().headers["Allow"] == "POST")
        }
        #expect(next.trace.isEmpty)
    }

    @Test(arguments: [ClientTransport.httpGet, .httpPost])
    func subscriptionOverPlainHTTPIsRefused(transport: ClientTransport) async throws {
        let next = RecordingNext()
        do {
            _ = try await HTTPMethodRulesExchange().handle(try operation(kind: .subscription, transport: transport), next: next.next)
            Issue.record("a subscription over plain HTTP was forwarded")
        } catch let error as GatewayError {
            #expect(error == .subscriptionTransportRequired)
            #expect(error.status == 400)
            #expect(error.code == "SUBSCRIPTION_TRANSPORT_REQUIRED")
        }
        #expect(next.trace.isEmpty)
    }

    @Test func everythingElseIsForwarded() async throws {
        let next = RecordingNext()
        let exchange = HTTPMethodRulesExchange()
        var results: [String] = []
        for (kind, transport) in [(OperationKind.query, ClientTransport.httpGet), (.query, .httpPost), (.mutation, .httpPost)] {
            results.append(await outcome(of: exchange, try operation(kind: kind, transport: transport), next: next))
        }
        results.append(await outcome(of: exchange, try operation(kind: nil, transport: .httpGet), next: next))
        #expect(results == ["200 upstream", "200 upstream", "200 upstream", "200 upstream"])
        #expect(next.trace == ["next: query anonymous", "next: query anonymous", "next: mutation anonymous", "next: nil -"])
    }

    @Test(arguments: [ResultDelivery.serverSentEvents, .multipart, .webSocket])
    func subscriptionWithAStreamingDeliveryIsForwarded(delivery: ResultDelivery) async throws {
        let next = RecordingNext()
        var op = try operation(kind: .subscription, transport: delivery == .webSocket ? .webSocket : .httpPost)
        op.delivery = delivery
        #expect(await outcome(of: HTTPMethodRulesExchange(), op, next: next) == "200 upstream")
        #expect(next.trace == ["next: subscription anonymous"])
    }

    @Test func mutationOverGETIsRefusedWhateverTheDelivery() async throws {
        var op = try operation(kind: .mutation, transport: .httpGet)
        op.delivery = .serverSentEvents
        #expect(await outcome(of: HTTPMethodRulesExchange(), op, next: RecordingNext()) == "405 METHOD_NOT_ALLOWED Allow: POST")
    }

    @Test func afterDocumentExchangeTheRulesApplyToTheSelectedOperation() async {
        let next = RecordingNext()
        let chain = ExchangeChain(stages: [.inline(DocumentExchange(cache: DocumentCache())), .inline(HTTPMethodRulesExchange())],
                                  transport: NextTransport(next: next))
        let text = "query Q { a } mutation M { b } subscription S { c }"
        var results: [String] = []
        for (name, transport) in [("Q", ClientTransport.httpGet), ("M", .httpGet), ("M", .httpPost), ("S", .httpPost)] {
            results.append(await outcome(of: ChainExchange(chain: chain), operation(text, operationName: name, transport: transport),
                                         next: RecordingNext()))
        }
        #expect(results == ["200 upstream", "405 METHOD_NOT_ALLOWED Allow: POST", "200 upstream", "400 SUBSCRIPTION_TRANSPORT_REQUIRED"])
        #expect(next.trace == ["next: query Q", "next: mutation M"])
    }
}

/// An analysed operation of `query` over `transport`, whose client does or does not take `multipart/mixed` parts.
private func deferring(_ query: String = "{ a ... @defer { b } }", transport: ClientTransport = .httpPost,
                       acceptsParts: Bool) throws -> Operation {
    var op = operation(query, transport: transport)
    op.selected = try DocumentCache().analyse(query).selectOperation(named: nil)
    op.acceptsIncrementalDelivery = acceptsParts
    return op
}

@Suite struct IncrementalDeliveryRuleTests {
    @Test(arguments: ["{ a ... @defer { b } }", "{ list @stream { b } }", "mutation { a ... @defer { b } }"])
    func deferOrStreamWithoutMultipartIs406AndNeverRuns(query: String) async throws {
        let next = RecordingNext()
        for transport in [ClientTransport.httpPost, .httpGet] where !(transport == .httpGet && query.hasPrefix("mutation")) {
            let refused = await outcome(of: HTTPMethodRulesExchange(), try deferring(query, transport: transport, acceptsParts: false),
                                        next: next)
            #expect(refused == "406 NOT_ACCEPTABLE")
        }
        #expect(next.trace.isEmpty)
        #expect(GatewayError.incrementalDeliveryNotAccepted.message.contains("multipart/mixed"))
    }

    @Test func aClientThatTakesPartsIsForwarded() async throws {
        let next = RecordingNext()
        #expect(await outcome(of: HTTPMethodRulesExchange(), try deferring(acceptsParts: true), next: next) == "200 upstream")
        #expect(next.trace == ["next: query anonymous"])
    }

    @Test func aPlainQueryNeedsNoMultipartAndAWebSocketNoAccept() async throws {
        let next = RecordingNext()
        let exchange = HTTPMethodRulesExchange()
        #expect(await outcome(of: exchange, try deferring("{ a { b } }", acceptsParts: false), next: next) == "200 upstream")
        #expect(await outcome(of: exchange, try deferring(transport: .webSocket, acceptsParts: false), next: next) == "200 upstream")
        #expect(next.trace.count == 2)
    }
}

/// A transport that hands operations to a recording fake.
private struct NextTransport: Transport {
    let next: RecordingNext

    func send(_ operation: Operation) async throws -> ResultStream {
        try await next.next(operation)
    }
}

/// A whole chain run as one exchange, so `outcome(of:)` can drive it.
private struct ChainExchange: Exchange {
    let chain: ExchangeChain

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        try await chain.run(operation)
    }
}
