import Foundation
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import GraphQL
import Testing

/// Validation against a schema held at the edge: the schema built from SDL,
/// documents validated once per schema, variables coerced, and the stage's answers.
@Suite struct SchemaValidationTests {
    static let sdl = """
        type Query {
          hero(episode: Episode): Character
          reviews(episode: Episode!, first: Int = 10): [Review!]!
          search(filter: Filter): [Character!]
        }
        enum Episode { NEWHOPE EMPIRE JEDI }
        interface Character { id: ID! name: String! }
        type Human implements Character { id: ID! name: String! height: Float @cost(weight: "2") }
        type Droid implements Character { id: ID! name: String! primaryFunction: String }
        type Review { id: ID! stars: Int! commentary: String }
        input Filter { name: String, episodes: [Episode!], minStars: Int! = 1, nested: Filter }
        input ReviewInput { stars: Int!, commentary: String }
        type Mutation { createReview(episode: Episode, review: ReviewInput!): Review }
        """

    private static func loaded(_ sdl: String = sdl) throws -> LoadedSchema {
        try LoadedSchema(sdl: sdl)
    }

    /// Runs `query` through the document and validation stages; what came of it.
    private func run(_ query: String, variables: JSONValue? = nil, schema: GatewaySchema, enforcing: Bool = true) async -> String {
        let chain = ExchangeChain(
            stages: [.inline(DocumentExchange(cache: DocumentCache())), .inline(ValidationExchange(schema: schema, enforcing: enforcing))],
            transport: Upstream())
        do {
            _ = try await chain.run(GQLGatePipeline.Operation(request: GraphQLRequest(query: query, variables: variables), clientTransport: .httpPost,
                                              headers: [:], requestID: "r"))
            return "forwarded"
        } catch let error as GatewayError {
            return "\(error.status) \(error.jsonBody())"
        } catch {
            return "\(error)"
        }
    }

    private func holding(_ schema: LoadedSchema) -> GatewaySchema {
        let held = GatewaySchema()
        held.install(schema)
        return held
    }

    @Test func aValidDocumentIsForwarded() async throws {
        let schema = holding(try Self.loaded())
        #expect(await run("{ hero(episode: JEDI) { name ... on Human { height } } }", schema: schema) == "forwarded")
    }

    @Test func withoutASchemaEverythingIsForwarded() async {
        #expect(await run("{ nope }", schema: GatewaySchema()) == "forwarded")
    }

    @Test func everyErrorComesWithItsLocationInTheClientsText() async throws {
        let schema = holding(try Self.loaded())
        let answer = await run("{\n  hero {\n    nam\n  }\n  villain\n}", schema: schema)
        #expect(answer == #"400 {"errors":[{"message":"Cannot query field \"nam\" on type \"Character\". Did you mean \"name\"?","#
            + #""locations":[{"line":3,"column":5}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}},"#
            + #"{"message":"Cannot query field \"villain\" on type \"Query\".","locations":[{"line":5,"column":3}],"#
            + #""extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}"#)
    }

    @Test func aDocumentIsValidatedOncePerSchema() throws {
        let first = try Self.loaded()
        let document = try DocumentCache().analyse("{ hero { name } }")
        #expect(first.knownVerdict(on: document) == nil)
        #expect(first.verdict(on: document).isValid)
        #expect(first.knownVerdict(on: document)?.isValid == true)
        let second = try Self.loaded("type Query { other: Int }")
        #expect(second.knownVerdict(on: document) == nil, "a verdict is the schema's that reached it")
        #expect(second.verdict(on: document).namesWhatTheSchemaLacks)
    }

    @Test func aRuleErrorThatIsNotAboutTheSchemaIsNotSkew() throws {
        let verdict = try Self.loaded().verdict(on: try DocumentCache().analyse("query A { hero { name } } query A { hero { id } }"))
        #expect(!verdict.isValid)
        #expect(!verdict.namesWhatTheSchemaLacks)
    }

    @Test(arguments: [
        (#"{"e": "JEDI"}"#, nil),
        (#"{}"#, #"Variable "$e" of required type "Episode!" was not provided."#),
        (#"{"e": null}"#, #"Variable "$e" of non-null type "Episode!" must not be null."#),
        (#"{"e": "JEDIX"}"#, #"Variable "$e" got invalid value "JEDIX"; Value "JEDIX" does not exist in "Episode" enum."#),
        (#"{"e": 4}"#, #"Variable "$e" got invalid value 4; Enum "Episode" cannot represent non-string value: 4."#),
    ] as [(String, String?)])
    func enumVariables(variables: String, problem: String?) async throws {
        let schema = holding(try Self.loaded())
        let answer = await run("query($e: Episode!) { reviews(episode: $e) { stars } }", variables: try JSONReader.read(variables), schema: schema)
        if let problem {
            #expect(answer.hasPrefix("400 "))
            #expect(answer.contains(JSONValue.string(problem).serialized()), "\(answer)")
            #expect(answer.contains("BAD_USER_INPUT"))
        } else {
            #expect(answer == "forwarded")
        }
    }

    @Test(arguments: [
        (#"{"f": {"name": "R2", "episodes": ["JEDI"], "nested": {"minStars": 2}}}"#, []),
        (#"{"f": {"episodes": "JEDI"}}"#, []),  // a single value where a list is wanted is a list of one
        (#"{"f": {"name": 5}}"#, [#"Variable "$f" got invalid value 5 at "f.name"; String cannot represent a non string value: 5"#]),
        (#"{"f": {"episodes": ["JEDI", "X"]}}"#, [#"Variable "$f" got invalid value "X" at "f.episodes[1]"; Value "X" does not exist in "Episode" enum."#]),
        (#"{"f": {"episodes": [null]}}"#, [#"Variable "$f" got invalid value null at "f.episodes[0]"; Expected non-nullable type "Episode!" not to be null."#]),
        (#"{"f": {"unknown": 1}}"#, [#"Variable "$f" got invalid value {"unknown":1}; Field "unknown" is not defined by type "Filter"."#]),
        (#"{"f": {"nested": {"minStars": 1.5}}}"#, [#"Variable "$f" got invalid value 1.5 at "f.nested.minStars"; Int cannot represent non-integer value: 1.5"#]),
        (#"{"f": {"nested": {"minStars": 3000000000}}}"#,
         [#"Variable "$f" got invalid value 3000000000 at "f.nested.minStars"; Int cannot represent non 32-bit signed integer value: 3000000000"#]),
        (#"{"f": "name"}"#, [#"Variable "$f" got invalid value "name"; Expected type "Filter" to be an object."#]),
    ] as [(String, [String])])
    func inputObjectVariables(variables: String, problems: [String]) async throws {
        let schema = holding(try Self.loaded())
        let answer = await run("query($f: Filter) { search(filter: $f) { name } }", variables: try JSONReader.read(variables), schema: schema)
        if problems.isEmpty {
            #expect(answer == "forwarded")
        } else {
            let messages = problems.map { JSONValue.object([("message", .string($0)), ("extensions", .object([("code", .string("BAD_USER_INPUT"))]))]) }
            #expect(answer == "400 " + JSONValue.object([("errors", .array(messages))]).serialized())
        }
    }

    @Test func requiredInputFieldsAndScalarsAreChecked() async throws {
        let schema = holding(try Self.loaded())
        let query = "mutation($r: ReviewInput!) { createReview(review: $r) { id } }"
        #expect(await run(query, variables: try JSONReader.read(#"{"r": {"stars": 5}}"#), schema: schema) == "forwarded")
        let missing = await run(query, variables: try JSONReader.read(#"{"r": {}}"#), schema: schema)
        #expect(missing.contains(#"Field \"stars\" of required type \"Int!\" was not provided."#), "\(missing)")
    }

    @Test func notEnforcingPassesEverythingOn() async throws {
        let schema = holding(try Self.loaded())
        #expect(await run("{ villain }", schema: schema, enforcing: false) == "forwarded")
        #expect(await run("query($e: Episode!) { reviews(episode: $e) { id } }", schema: schema, enforcing: false) == "forwarded")
    }

    @Test func aDocumentNamingWhatTheSchemaLacksIsCheckedAgainstARefreshedSchema() async throws {
        let schema = holding(try Self.loaded())
        let refreshes = Lock(0)
        schema.setEarlyRefresh {
            refreshes.withLock { $0 += 1 }
            schema.install(try! Self.loaded(Self.sdl.replacingOccurrences(of: "type Query {", with: "type Query {\n  villain: String")))
        }
        #expect(await run("{ villain }", schema: schema) == "forwarded")
        #expect(refreshes.withLock { $0 } == 1)
        #expect(await run("query Q { hero { name } }", schema: schema) == "forwarded")
        #expect(refreshes.withLock { $0 } == 1, "a valid document asks for nothing")
    }

    @Test func aSchemaFileMayUseTheCostDirectivesWithoutDefiningThem() throws {
        let schema = try LoadedSchema(sdl: "type Query { items(first: Int): [Int] @listSize(slicingArguments: [\"first\"]) @cost(weight: \"3\") }")
        #expect(schema.schema.directives.contains { $0.name == "listSize" })
    }

    @Test func deferAndStreamAreKnownWhetherTheSchemaDefinesThemOrNot() throws {
        let document = try DocumentCache().analyse("{ reviews(episode: JEDI) @stream(initialCount: 1) { id ... @defer { stars } } }")
        #expect(try Self.loaded().verdict(on: document).isValid)
        let defining = Self.sdl + "\ndirective @defer(label: String, if: Boolean! = true) on FRAGMENT_SPREAD | INLINE_FRAGMENT\n"
        #expect(try Self.loaded(defining).verdict(on: document).isValid)
    }

    @Test func textThatIsNotAValidSchemaIsRefusedWithItsPlace() {
        #expect(throws: SchemaLoadError.self) { try LoadedSchema(sdl: "type Query { a: Nope }") }
        #expect(throws: SchemaLoadError.self) { try LoadedSchema(sdl: "type Query {") }
        #expect(throws: SchemaLoadError.self) { try LoadedSchema(sdl: "type Mutation { a: Int }") }
    }

    /// The SDL printed from an introspection answer builds the schema that
    /// answered (the same types, fields, arguments and defaults, in another
    /// order). No input field default here: GraphQLSwift's own introspection
    /// leaves those out, though the servers gqlgate fronts report them.
    @Test func introspectionPrintsTheSchemaBack() async throws {
        let original = try Self.loaded(Self.sdl.replacingOccurrences(of: "minStars: Int! = 1", with: "minStars: Int!") + "\nunion Result = Human | Droid\nscalar Date\ntype Extra { old: Int @deprecated(reason: \"no \\\"more\\\"\") when: Date }\n"
            + "directive @auth(role: String = \"user\") on FIELD_DEFINITION | OBJECT\n")
        let result = try await graphql(schema: original.schema, request: IntrospectionSDL.query)
        #expect(result.errors.isEmpty)
        let data = try JSONReader.read(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))["data"]
        let answer = try #require(data)
        let sdl = try #require(IntrospectionSDL.sdl(fromIntrospection: answer))
        let rebuilt = try LoadedSchema(sdl: sdl)
        let lines = { (schema: LoadedSchema) in printSchema(schema: schema.schema).split(separator: "\n").sorted() }
        #expect(lines(rebuilt) == lines(original))
    }
}

/// The end of the chain: every operation that reaches it is answered.
private struct Upstream: Transport {
    func send(_ operation: GQLGatePipeline.Operation) async throws -> ResultStream {
        .single(GraphQLResponse(status: 200, headers: [:], body: .empty, source: .upstream))
    }
}
