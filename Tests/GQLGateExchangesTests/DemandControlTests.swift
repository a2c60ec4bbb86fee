@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

/// Demand control: costs estimated as the IBM GraphQL Cost Directives
/// specification computes them (each expected value is worked out by hand
/// in its comment), the actual cost from an answer, and the stage's refusals.
@Suite struct DemandControlTests {
    static let sdl = """
        type Query {
          hero: Character
          reviews(first: Int, after: String): [Review!]! @listSize(slicingArguments: ["first"], requireOneSlicingArgument: false)
          topReviews: [Review] @listSize(assumedSize: 5)
          pagedReviews(first: Int = 3): [Review] @listSize(slicingArguments: ["first"])
          films(first: Int, last: Int): FilmConnection @listSize(slicingArguments: ["first", "last"], sizedFields: ["edges"])
          search(text: String, filter: Filter @cost(weight: "3")): [SearchResult]
          expensive: Int @cost(weight: "7")
          cheaper(approx: Boolean @cost(weight: "-3")): Review @cost(weight: "5")
          planets: [Planet]
          tags: [String]
        }
        type Planet @cost(weight: "4") { name: String }
        union SearchResult = Human | Droid
        interface Character { id: ID! name: String friends: [Character] }
        type Human implements Character { id: ID! name: String friends: [Character] starships: [Starship] }
        type Droid implements Character { id: ID! name: String friends: [Character] primaryFunction: String }
        type Starship { name: String }
        type Review { stars: Int author: Human }
        type FilmConnection { edges: [FilmEdge] pageInfo: PageInfo }
        type FilmEdge { node: Film cursor: String }
        type Film { title: String }
        type PageInfo { hasNextPage: Boolean }
        input Filter { minStars: Int @cost(weight: "2") tags: [String] nested: Filter }
        type Mutation { addReview(stars: Int!): Review }
        """

    /// The estimate of `query` (nil: the stage refused it), and the answer's `extensions.cost` when the upstream gives `answer`.
    private func estimate(_ query: String, variables: JSONValue? = nil, settings: DemandControlSettings = DemandControlSettings(),
                          sdl: String = sdl) async throws -> Double? {
        let schema = GatewaySchema()
        schema.install(try LoadedSchema(sdl: sdl))
        let upstream = Capturing()
        let chain = ExchangeChain(
            stages: [.inline(DocumentExchange(cache: DocumentCache())), .inline(DemandControlExchange(schema: schema, settings: settings))],
            transport: upstream)
        _ = try await chain.run(Operation(request: GraphQLRequest(query: query, variables: variables), clientTransport: .httpPost,
                                          headers: [:], requestID: "r"))
        return upstream.cost.withLock { $0 }
    }

    @Test func anObjectFieldCostsOneAndScalarsNothing() async throws {
        // hero: 1; name: 0.
        #expect(try await estimate("{ hero { name id } }") == 1)
    }

    @Test func aListMultipliesItsSelectionsByListSize() async throws {
        // hero 1 × (1 + friends: 10 × (1 + name 0)) = 11.
        #expect(try await estimate("{ hero { name friends { name } } }") == 11)
        // With list_size 3: 1 + 3 × 1 = 4.
        #expect(try await estimate("{ hero { friends { name } } }", settings: DemandControlSettings(listSize: 3)) == 4)
    }

    @Test func aSlicingArgumentSizesTheList() async throws {
        // reviews(first: 3): 3 × (Review 1 + author 1) = 6.
        #expect(try await estimate("{ reviews(first: 3) { stars author { name } } }") == 6)
    }

    @Test func aSlicingVariableSizesTheListPerRequest() async throws {
        let query = "query($n: Int) { reviews(first: $n) { stars } }"
        // 7 × 1; without the variable, list_size: 10 × 1.
        #expect(try await estimate(query, variables: .object([("n", .integer(7))])) == 7)
        #expect(try await estimate(query) == 10)
        // The operation's default for the variable: 2 × 1.
        #expect(try await estimate("query($n: Int = 2) { reviews(first: $n) { stars } }") == 2)
    }

    @Test func anArgumentsSchemaDefaultSizesTheList() async throws {
        // pagedReviews(first: Int = 3) without first: 3 × 1.
        #expect(try await estimate("{ pagedReviews { stars } }") == 3)
    }

    @Test func assumedSizeSizesTheList() async throws {
        // topReviews @listSize(assumedSize: 5): 5 × (1 + author 1) = 10.
        #expect(try await estimate("{ topReviews { author { id } } }") == 10)
    }

    @Test func sizedFieldsSizeTheConnectionsEdges() async throws {
        // films 1 × (1 + edges 4 × (1 + node 1) + pageInfo 1) = 10.
        #expect(try await estimate("{ films(first: 4) { edges { node { title } } pageInfo { hasNextPage } } }") == 10)
        // The largest slicing argument given: last 6 → 1 × (1 + 6 × 1) = 7.
        #expect(try await estimate("{ films(first: 2, last: 6) { edges { cursor } } }") == 7)
    }

    @Test func costOnAFieldAndOnATypeOverrideTheDefaults() async throws {
        // expensive @cost 7 (a scalar field).
        #expect(try await estimate("{ expensive }") == 7)
        // planets: 10 × Planet @cost 4 = 40.
        #expect(try await estimate("{ planets { name } }") == 40)
    }

    @Test func argumentsAndInputFieldsAddTheirCost() async throws {
        // search: 10 × (SearchResult 1) + filter (@cost 3 + minStars @cost 2) = 15.
        #expect(try await estimate(#"{ search(text: "x", filter: {minStars: 2}) { __typename } }"#) == 15)
        // An input object's field of input object type: filter 3 + nested (1, default) = 4 → 14.
        #expect(try await estimate(#"{ search(filter: {nested: {tags: ["a"]}}) { __typename } }"#) == 14)
        // A negative argument weight lowers its field: cheaper 5 + approx -3 = 2 (+ Review's stars 0).
        #expect(try await estimate("{ cheaper(approx: true) { stars } }") == 2)
        // The same from a variable.
        #expect(try await estimate("query($f: Filter) { search(filter: $f) { __typename } }",
                                   variables: .object([("f", .object([("minStars", .integer(1))]))])) == 15)
    }

    @Test func fragmentsOnAUnionCostTheMostOfItsTypes() async throws {
        // search 10 × (1 + max(Human: starships 10 × 1, Droid: 0)) = 110.
        #expect(try await estimate("{ search { ... on Human { starships { name } } ... on Droid { primaryFunction } } }") == 110)
    }

    @Test func namedFragmentsAreExpanded() async throws {
        // hero 1 × (1 + friends 10 × 1) = 11.
        let query = "query { ...Q } fragment Q on Query { hero { ...C } } fragment C on Character { name friends { id } }"
        #expect(try await estimate(query) == 11)
    }

    @Test func aMutationAddsTen() async throws {
        // 10 + addReview 1.
        #expect(try await estimate("mutation { addReview(stars: 5) { stars } }") == 11)
    }

    @Test func skippedSelectionsCostNothing() async throws {
        #expect(try await estimate("{ hero @skip(if: true) { name } expensive }") == 7)
        let query = "query($s: Boolean!) { hero @skip(if: $s) { name } }"
        #expect(try await estimate(query, variables: .object([("s", .bool(true))])) == 0)
        #expect(try await estimate(query, variables: .object([("s", .bool(false))])) == 1)
    }

    @Test func introspectionAndTypenameCostNothing() async throws {
        #expect(try await estimate("{ __typename __schema { types { name fields { name } } } }") == 0)
    }

    @Test func weightsSetCostsWithoutDirectives() async throws {
        let settings = DemandControlSettings(weights: ["Review": 3, "Query.hero": 5])
        // Query.hero's weight 5.
        #expect(try await estimate("{ hero { name } }", settings: settings) == 5)
        // topReviews: 5 × Review 3 = 15.
        #expect(try await estimate("{ topReviews { stars } }", settings: settings) == 15)
    }

    @Test func enforceRefusesAnOperationOverMaxCost() async throws {
        let settings = DemandControlSettings(enforcing: true, maxCost: 10)
        await #expect(throws: GatewayError.costEstimatedTooExpensive(estimated: 11, max: 10)) {
            try await estimate("{ hero { friends { name } } }", settings: settings)
        }
        let error = GatewayError.costEstimatedTooExpensive(estimated: 11, max: 10)
        #expect(error.status == 400)
        #expect(error.jsonBody().contains(#""extensions":{"code":"COST_ESTIMATED_TOO_EXPENSIVE","cost":{"estimated":11,"max":10}}"#))
        // At the maximum it runs.
        #expect(try await estimate("{ topReviews { stars } hero { id } }", settings: settings) == 6)
    }

    /// What `query`'s answer looks like with `expose` when the upstream answers `answer`.
    private func exposed(_ query: String, answer: String) async throws -> String {
        let schema = GatewaySchema()
        schema.install(try LoadedSchema(sdl: Self.sdl))
        let chain = ExchangeChain(
            stages: [.inline(DocumentExchange(cache: DocumentCache())),
                     .inline(DemandControlExchange(schema: schema, settings: DemandControlSettings(maxCost: 500, expose: true)))],
            transport: Answering(body: answer))
        let stream = try await chain.run(Operation(request: GraphQLRequest(query: query), clientTransport: .httpPost, headers: [:], requestID: "r"))
        return try #require(try await stream.first()).body.string
    }

    @Test func exposeAddsTheEstimateAndTheActualCostFromTheAnswer() async throws {
        // Estimate: hero 1 × (1 + friends 10 × (1 + starships... none)) = 11.
        // Actual: hero 1 + two friends 2 = 3 (the third is null: nothing).
        let body = try await exposed("{ hero { name friends { name } } }",
                                     answer: #"{"data":{"hero":{"name":"Luke","friends":[{"name":"Han"},{"name":"Leia"},null]}}}"#)
        #expect(body == #"{"data":{"hero":{"name":"Luke","friends":[{"name":"Han"},{"name":"Leia"},null]}},"extensions":{"cost":{"estimated":11,"actual":3,"max":500}}}"#)
    }

    @Test func exposeKeepsTheAnswersOwnExtensions() async throws {
        // Estimate: 10 + addReview 1 = 11; actual: 10 + the review 1 = 11.
        let body = try await exposed("mutation { addReview(stars: 5) { stars } }",
                                     answer: #"{"data":{"addReview":{"stars":5}},"extensions":{"traceId":"t"}}"#)
        #expect(body == #"{"data":{"addReview":{"stars":5}},"extensions":{"traceId":"t","cost":{"estimated":11,"actual":11,"max":500}}}"#)
    }

    @Test func theActualCostOfAUnionCountsTheTypesThatCame() async throws {
        // Estimate 110 (above); actual: two results 2 + the Human's three starships 3 = 5.
        let answer = #"{"data":{"search":[{"__typename":"Human","starships":[{"name":"a"},{"name":"b"},{"name":"c"}]},{"__typename":"Droid","primaryFunction":"p"}]}}"#
        let body = try await exposed("{ search { __typename ... on Human { starships { name } } ... on Droid { primaryFunction } } }", answer: answer)
        #expect(body.hasSuffix(#""extensions":{"cost":{"estimated":110,"actual":5,"max":500}}}"#))
    }

    @Test func fragmentsThatMultiplyWithoutBoundAreEstimatedBeyondAnyMaximum() async throws {
        var query = "{ ...F0 } "
        for level in 0..<24 { query += "fragment F\(level) on Query { ...F\(level + 1) ...F\(level + 1) } " }
        query += "fragment F24 on Query { hero { id } }"
        #expect(try await estimate(query) == 1e12)
    }
}

/// An upstream that answers `body`.
private struct Answering: Transport {
    let body: String

    func send(_ operation: GQLGatePipeline.Operation) async throws -> ResultStream {
        .single(GraphQLResponse(status: 200, headers: [:], body: Bytes(body), source: .upstream))
    }
}

/// An upstream that keeps the estimated cost of what it is sent.
private final class Capturing: Transport {
    let cost = Lock<Double?>(nil)

    func send(_ operation: GQLGatePipeline.Operation) async throws -> ResultStream {
        cost.withLock { $0 = operation.estimatedCost }
        return .single(GraphQLResponse(status: 200, headers: [:], body: .empty, source: .upstream))
    }
}
