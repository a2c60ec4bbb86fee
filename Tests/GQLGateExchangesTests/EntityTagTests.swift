import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import Testing

/// `reviews` and `updateReview` (a payload holding the review) over `Review { id: ID! }`.
private let reviewSchema = EntitySchema(
    rootTypes: [.query: "Query", .mutation: "Mutation"],
    fieldTypes: [
        "Query": ["reviews": "Review"], "Mutation": ["updateReview": "ReviewPayload"],
        "ReviewPayload": ["review": "Review"], "Review": ["id": "ID", "stars": "Int"],
    ],
    identifiedTypes: ["Review"], possibleTypes: [:])

@Suite struct EntityTagTests {
    @Test func addedIDsAreStrippedAndTagTheirEntities() throws {
        let body = #"{"data":{"reviews":[{"stars":4,"_gqlgate_typename":"Review","_gqlgate_id":"3"},"#
            + #"{"stars":5,"id":"4","_gqlgate_typename":"Review","_gqlgate_id":"4"}]}}"#
        let inspection = try #require(AnswerInspection(body: Bytes(body), alias: "_gqlgate_typename", idAlias: "_gqlgate_id"))
        #expect(inspection.body.string == #"{"data":{"reviews":[{"stars":4},{"stars":5,"id":"4"}]}}"#)
        #expect(inspection.entities == ["Review:3", "Review:4"])
    }

    @Test func aPayloadMutationPurgesCachedAnswersHoldingItsEntityThoughNeitherClientSelectedID() async throws {
        let cache = MemoryResponseCache(maxBytes: 1 << 20)
        let exchange = CacheExchange(cache: cache, settings: .init(schema: EntitySchemaSource(reviewSchema)))
        let jedi = try analysed("{ reviews(episode: JEDI) { stars } }")
        let empire = try analysed("{ reviews(episode: EMPIRE) { stars } }")
        let jediUpstream = ScriptedUpstream(#"{"data":{"reviews":[{"stars":4,"_gqlgate_typename":"Review","_gqlgate_id":"3"}]}}"#)
        #expect(try await served(by: exchange, jedi, upstream: jediUpstream) == #"200 MISS {"data":{"reviews":[{"stars":4}]}}"#)
        #expect(jediUpstream.queries[0].contains("_gqlgate_id: id"))
        _ = try await served(by: exchange, empire, upstream: ScriptedUpstream(
            #"{"data":{"reviews":[{"stars":5,"_gqlgate_typename":"Review","_gqlgate_id":"2"}]}}"#))

        let update = try analysed(#"mutation { updateReview(id: "3", stars: 1) { review { stars } } }"#)
        let mutationUpstream = ScriptedUpstream(
            #"{"data":{"updateReview":{"review":{"stars":1,"_gqlgate_typename":"Review","_gqlgate_id":"3"},"_gqlgate_typename":"ReviewPayload"}}}"#)
        #expect(try await served(by: exchange, update, upstream: mutationUpstream) == #"200 - {"data":{"updateReview":{"review":{"stars":1}}}}"#)
        #expect(mutationUpstream.queries[0].contains("_gqlgate_id: id"))

        let again = ScriptedUpstream(#"{"data":{"reviews":[]}}"#)
        #expect(try await served(by: exchange, jedi, upstream: again).hasPrefix("200 MISS"))
        #expect(try await served(by: exchange, empire, upstream: again).hasPrefix("200 HIT"))
    }

    @Test func withoutALearnedSchemaOnlyTheTypenameIsAdded() async throws {
        let exchange = CacheExchange(cache: MemoryResponseCache(maxBytes: 1 << 20), settings: .init(schema: EntitySchemaSource()))
        let upstream = ScriptedUpstream(#"{"data":{"reviews":[]}}"#)
        _ = try await served(by: exchange, try analysed("{ reviews(episode: JEDI) { stars } }"), upstream: upstream)
        #expect(upstream.queries[0].contains("_gqlgate_typename: __typename"))
        #expect(!upstream.queries[0].contains("_gqlgate_id"))
    }
}

@Suite struct SchemaIntrospectionTests {
    private static func answer(_ status: Int, _ body: String) -> GraphQLResponse {
        GraphQLResponse(status: status, headers: ["Content-Type": "application/json"], body: Bytes(body), source: .upstream)
    }

    private static let schemaBody = #"{"data":{"__schema":{"queryType":{"name":"Query"},"mutationType":null,"subscriptionType":null,"#
        + #""types":[{"kind":"OBJECT","name":"Query","possibleTypes":null,"fields":[{"name":"review","args":[],"#
        + #""type":{"kind":"OBJECT","name":"Review","ofType":null}}]},{"kind":"OBJECT","name":"Review","possibleTypes":null,"#
        + #""fields":[{"name":"id","args":[],"type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"SCALAR","name":"ID","ofType":null}}}]}]}}}"#

    @Test func aSchemaIsLearnedThroughTheChainWithTheIntrospectionQuery() async throws {
        let upstream = ScriptedUpstream(Self.schemaBody)
        let learned = await SchemaIntrospection.learn(through: ExchangeChain(stages: [.inline(DocumentExchange(cache: DocumentCache()))],
                                                                              transport: ScriptedTransport(upstream: upstream)))
        let schema = try learned.get()
        #expect(schema.identifiedTypes == ["Review"])
        #expect(upstream.queries == [EntitySchema.introspectionQuery])
    }

    @Test func refusalsAndMissingAnswersAreTold() {
        let disabled = SchemaIntrospection.read(Self.answer(200, #"{"errors":[{"message":"introspection is disabled"}]}"#))
        #expect(disabled.failure == .refused("the upstream refused introspection: introspection is disabled"))
        #expect(SchemaIntrospection.read(Self.answer(503, "busy")).failure == .unanswered("the upstream answered 503"))
        #expect(SchemaIntrospection.read(Self.answer(404, "<html>")).failure
            == .refused("the upstream answered 404 with a body that is not JSON"))
        #expect(SchemaIntrospection.read(Self.answer(200, #"{"data":{}}"#)).failure == .refused("the upstream answered 200 without a schema"))
    }

    @Test func anUnreachableUpstreamIsUnanswered() async {
        let upstream = ScriptedUpstream([.init(body: "", error: .upstreamUnavailable("connection refused"))])
        let learned = await SchemaIntrospection.learn(through: ExchangeChain(stages: [], transport: ScriptedTransport(upstream: upstream)))
        #expect(learned.failure == .unanswered("connection refused"))
    }
}

/// A transport answering from a `ScriptedUpstream`.
private struct ScriptedTransport: Transport {
    let upstream: ScriptedUpstream

    func send(_ operation: Operation) async throws -> ResultStream {
        try await upstream.next(operation)
    }
}

extension Result {
    /// The failure, when there is one.
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { failure } else { nil }
    }
}
