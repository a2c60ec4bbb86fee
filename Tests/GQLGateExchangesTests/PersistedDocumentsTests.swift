@_spi(GQLGateInternals) import GQLGateCore
@testable import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

private let hero = "query Hero { hero { name } }"
private let heroHash = DocumentCache.digest(of: hero).hexString
private let twoDefinitions = "query Named { hero { ...N } } fragment N on Character { name }"

/// Outcomes the stages stated, in order.
private final class Outcomes: Sendable {
    let facts = RecordedFacts()
    var outcomes: [PersistedDocumentOutcome] {
        facts.operationFacts.compactMap { fact in if case .persistedDocument(let outcome) = fact { outcome } else { nil } }
    }
    var unknown: [String] {
        facts.operationFacts.compactMap { fact in
            if case .unlistedOperation(let name, let sha) = fact { "\(name ?? "-") \(sha)" } else { nil }
        }
    }
}

/// Reload failures reported.
private final class Failures: Sendable {
    let lines = Lock<[String]>([])
}

/// The persisted documents' stages around a document stage, as the gateway places them.
private struct Stages {
    let library: PersistedDocumentLibrary
    let outcomes = Outcomes()
    let chain: [any InlineExchange]

    init(files: [TemporaryFile], requireID: Bool = false, rules: SafelistExchange.Rules = .init(), clock: GatewayClock = .system,
         failures: Failures? = nil) throws {
        let cache = DocumentCache()
        library = try PersistedDocumentLibrary(paths: files.map(\.path), cache: cache, clock: clock) { failure in
            failures?.lines.withLock { $0.append(failure.description) }
        }
        chain = [
            PersistedDocumentExchange(library: library, requireID: requireID),
            APQExchange(registers: !rules.safelist), DocumentExchange(cache: cache),
            SafelistExchange(library: library, rules: rules),
        ]
    }

    /// The query the upstream would be sent, or the error's status and code.
    func run(_ request: GraphQLRequest, transport: ClientTransport = .httpPost) async -> String {
        let next = RecordingNext()
        let result = await outcome(of: Chain(exchanges: chain, transport: TestTransport(next)),
                                   Operation(request: request, clientTransport: transport, headers: [:], requestID: "r",
                                             originalBody: nil, facts: OperationRecord(recorder: outcomes.facts)), next: next)
        guard result == "200 upstream" else { return result }
        return next.operations.last?.request.query ?? "-"
    }
}

private struct TestTransport: Transport {
    let next: RecordingNext
    init(_ next: RecordingNext) { self.next = next }
    func send(_ operation: Operation) async throws -> ResultStream { try await next.next(operation) }
}

/// A chain of exchanges run as one, so `outcome(of:)` can run it.
private struct Chain: Exchange {
    let chain: ExchangeChain
    init(exchanges: [any InlineExchange], transport: TestTransport) { chain = ExchangeChain(stages: exchanges.map { .inline($0) }, transport: transport) }
    func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        try await chain.run(operation)
    }
}

private func apq(_ hash: String) -> JSONValue {
    .object([("persistedQuery", .object([("version", .integer(1)), ("sha256Hash", .string(hash))]))])
}

@Suite struct PersistedDocumentsTests {
    let apollo = TemporaryFile(apolloManifest([hero]))
    let relay = TemporaryFile(#"{"relay-1": "\#(twoDefinitions)"}"#)

    @Test func everyKindOfIDRunsTheListedDocument() async throws {
        let stages = try Stages(files: [apollo, relay])
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "sha256:\(heroHash)")) == hero)
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: heroHash.uppercased())) == hero)
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "relay-1")) == twoDefinitions)
        #expect(await stages.run(GraphQLRequest(query: nil, extensions: apq(heroHash))) == hero)
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "sha256:\(DocumentCache.digest(of: twoDefinitions).hexString)"))
            == twoDefinitions)
        #expect(stages.outcomes.outcomes == Array(repeating: .idFound, count: 5))
    }

    @Test func anUnknownIDIs404AndAnUnknownAPQHashIsLeftToAPQ() async throws {
        let stages = try Stages(files: [apollo], rules: .init(safelist: true))
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "nope")) == "404 PERSISTED_QUERY_NOT_IN_LIST")
        #expect(await stages.run(GraphQLRequest(query: nil, extensions: apq(String(repeating: "a", count: 64))))
            == "200 PERSISTED_QUERY_NOT_FOUND")
        #expect(stages.outcomes.outcomes == [.idUnknown])
    }

    @Test func theSafelistRunsListedTextInAnyLayoutAndRefusesTheRest() async throws {
        let stages = try Stages(files: [apollo, relay], rules: .init(safelist: true, logUnknown: true))
        let reordered = "fragment N on Character {\n  name\n}\n# comment\nquery Named { hero { ...N } }"
        #expect(await stages.run(GraphQLRequest(query: reordered)) == reordered)
        #expect(await stages.run(GraphQLRequest(query: "query Other { hero { id } }")) == "403 QUERY_NOT_IN_SAFELIST")
        #expect(stages.outcomes.outcomes == [.listedText, .refused])
        #expect(stages.outcomes.unknown == ["Other \(DocumentCache.digest(of: "query Other { hero { id } }").hexString)"])
    }

    @Test func withTheSafelistAPQChecksButNeverRegisters() async throws {
        let stages = try Stages(files: [apollo], rules: .init(safelist: true))
        let other = "{ other }"
        let hash = DocumentCache.digest(of: other).hexString
        #expect(await stages.run(GraphQLRequest(query: other, extensions: apq(hash))) == "403 QUERY_NOT_IN_SAFELIST")
        #expect(await stages.run(GraphQLRequest(query: nil, extensions: apq(hash))) == "200 PERSISTED_QUERY_NOT_FOUND")
    }

    @Test func withoutTheSafelistUnlistedTextRuns() async throws {
        let stages = try Stages(files: [apollo])
        #expect(await stages.run(GraphQLRequest(query: "{ other }")) == "{ other }")
        #expect(stages.outcomes.outcomes == [.unlistedText])
        #expect(stages.outcomes.unknown.isEmpty)
    }

    @Test func requireIDRefusesTextEvenListedText() async throws {
        let stages = try Stages(files: [apollo], requireID: true)
        #expect(await stages.run(GraphQLRequest(query: hero)) == "400 PERSISTED_QUERY_ID_REQUIRED")
        #expect(await stages.run(GraphQLRequest(query: hero, extensions: apq(heroHash))) == hero)
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: heroHash)) == hero)
    }

    @Test func aMutationByIDOverGETIsStill405() async throws {
        let mutation = TemporaryFile(#"{"m": "mutation M { like }"}"#)
        let stages = try Stages(files: [mutation])
        let chain = stages.chain + [HTTPMethodRulesExchange()]
        let next = RecordingNext()
        let result = await outcome(of: Chain(exchanges: chain, transport: TestTransport(next)),
                                   Operation(request: GraphQLRequest(query: nil, documentID: "m"), clientTransport: .httpGet,
                                             headers: [:], requestID: "r"), next: next)
        #expect(result == "405 METHOD_NOT_ALLOWED Allow: POST")
    }

    @Test func introspectionIsRefusedUnlessTheDocumentIsListed() async throws {
        let schemaQuery = "query Tooling { __schema { queryType { name } } }"
        let tooling = TemporaryFile(#"{"tooling": "\#(schemaQuery)"}"#)
        let stages = try Stages(files: [tooling], rules: .init(introspection: false))
        #expect(await stages.run(GraphQLRequest(query: "{ __type(name: \"Query\") { name } }")) == "403 INTROSPECTION_DISABLED")
        #expect(await stages.run(GraphQLRequest(query: "{ __typename }")) == "{ __typename }")
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "tooling")) == schemaQuery)
        #expect(await stages.run(GraphQLRequest(query: schemaQuery)) == schemaQuery)

        let withoutManifests = [DocumentExchange(cache: DocumentCache()), SafelistExchange(library: nil, rules: .init(introspection: false))] as [any InlineExchange]
        let next = RecordingNext()
        #expect(await outcome(of: Chain(exchanges: withoutManifests, transport: TestTransport(next)),
                              operation("{ __schema { types { name } } }"), next: next) == "403 INTROSPECTION_DISABLED")
    }

    @Test func aChangedFileIsReadAgainAndABadOneKeepsTheOldSet() async throws {
        let file = TemporaryFile(#"{"a": "{ a }"}"#)
        let clock = ManualClock()
        let failures = Failures()
        let stages = try Stages(files: [file], rules: .init(safelist: true), clock: clock.clock, failures: failures)
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "a")) == "{ a }")

        file.write(#"{"b": "{ b }"}"#)
        // The very next request reads the changed file before it is answered.
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "b")) == "{ b }")
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "a")) == "404 PERSISTED_QUERY_NOT_IN_LIST")

        file.write(#"{"c": "{ c "}"#)
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "c")) == "404 PERSISTED_QUERY_NOT_IN_LIST")
        #expect(await stages.run(GraphQLRequest(query: nil, documentID: "c")) == "404 PERSISTED_QUERY_NOT_IN_LIST")
        #expect(await stages.run(GraphQLRequest(query: "{ b }")) == "{ b }")
        #expect(failures.lines.withLock { $0 }.count == 1)
        #expect(failures.lines.withLock { $0 }.first?.contains("id c: the document is not valid") == true)
    }

    @Test func aBadFileAtStartNamesTheFileAndEntry() {
        let bad = TemporaryFile(#"{"ok": "{ a }", "broken": "query {"}"#)
        do {
            _ = try PersistedDocumentLibrary(paths: [bad.path], cache: DocumentCache()) { _ in }
            Issue.record("a broken manifest was accepted")
        } catch {
            #expect(error.description.hasPrefix("\(bad.path): id broken: the document is not valid"))
        }
    }

    @Test func oneIDWithTwoDocumentsIsRefused() {
        let other = TemporaryFile(#"{"\#(heroHash)": "{ somethingElse }"}"#)
        #expect(throws: PersistedDocumentSet.Failure.self) {
            try PersistedDocumentLibrary(paths: [apollo.path, other.path], cache: DocumentCache()) { _ in }
        }
    }
}
