@testable import GQLGateDemo
import GraphQL
import Testing

@Suite struct DemoSchemaTests {
    private let schema: DemoSchema

    init() throws {
        schema = try DemoSchema()
    }

    private func run(_ query: String, variables: [String: Map] = [:], operationName: String? = nil) async throws -> GraphQLResult {
        let outcome = await schema.execute(GraphQLRequest(query: query, operationName: operationName, variables: variables))
        guard case .executed(let result) = outcome else {
            Issue.record("expected the request to run, got \(outcome)")
            throw CancellationError()
        }
        return result
    }

    @Test func sdlDeclaresTheClassicSchema() {
        let sdl = schema.sdl
        for line in [
            "interface Character {",
            "type Human implements Character {",
            "type Droid implements Character {",
            "  friends: [Character!]!",
            "  appearsIn: [Episode!]!",
            "  id: ID!",
            "  hero(episode: Episode): Character",
            "  character(id: ID!): Character",
            "  reviews(episode: Episode!): [Review!]!",
            "  createReview(episode: Episode!, review: ReviewInput!): Review!",
            "type Subscription {",
            "  reviewAdded(episode: Episode): Review!",
            "input ReviewInput {",
            "  stars: Int!",
            "  commentary: String",
            "  episode: Episode",
            "  primaryFunction: String!",
            "  homePlanet: String",
        ] {
            #expect(sdl.contains(line), "missing \(line)")
        }
        for value in Episode.allCases {
            #expect(sdl.contains("  \(value.rawValue)\n"))
        }
    }

    @Test func heroOfTheSagaIsR2D2() async throws {
        let result = try await run("{ hero { __typename id name appearsIn friends { name } ... on Droid { primaryFunction } } }")
        #expect(result == GraphQLResult(data: [
            "hero": [
                "__typename": "Droid",
                "id": "2001",
                "name": "R2-D2",
                "appearsIn": ["NEWHOPE", "EMPIRE", "JEDI"],
                "friends": [["name": "Luke Skywalker"], ["name": "Han Solo"], ["name": "Leia Organa"]],
                "primaryFunction": "Astromech",
            ],
        ]))
    }

    @Test func heroOfEmpireIsLuke() async throws {
        let result = try await run("{ hero(episode: EMPIRE) { __typename name ... on Human { homePlanet } } }")
        #expect(result == GraphQLResult(data: ["hero": ["__typename": "Human", "name": "Luke Skywalker", "homePlanet": "Tatooine"]]))
    }

    @Test func characterByIDTakesStringsAndIntegers() async throws {
        let result = try await run(#"{ a: character(id: "1003") { name } b: character(id: 2000) { name } c: character(id: "9") { name } }"#)
        #expect(result == GraphQLResult(data: ["a": ["name": "Leia Organa"], "b": ["name": "C-3PO"], "c": .null]))
    }

    @Test func variablesAreApplied() async throws {
        let result = try await run(
            "query Hero($episode: Episode, $id: ID!) { hero(episode: $episode) { name } character(id: $id) { id } }",
            variables: ["episode": "EMPIRE", "id": "1001"], operationName: "Hero")
        #expect(result == GraphQLResult(data: ["hero": ["name": "Luke Skywalker"], "character": ["id": "1001"]]))
    }

    @Test func reviewsStartEmpty() async throws {
        let result = try await run("{ reviews(episode: JEDI) { stars } }")
        #expect(result == GraphQLResult(data: ["reviews": []]))
    }

    @Test func createdReviewIsListed() async throws {
        let created = try await run(
            "mutation Add($review: ReviewInput!) { createReview(episode: JEDI, review: $review) { episode stars commentary } }",
            variables: ["review": ["stars": 5, "commentary": "This is a great movie."]])
        #expect(created == GraphQLResult(data: [
            "createReview": ["episode": "JEDI", "stars": 5, "commentary": "This is a great movie."],
        ]))
        _ = try await run("mutation { createReview(episode: JEDI, review: { stars: 3 }) { stars } }")

        let listed = try await run("{ jedi: reviews(episode: JEDI) { stars commentary } empire: reviews(episode: EMPIRE) { stars } }")
        #expect(listed == GraphQLResult(data: [
            "jedi": [["stars": 5, "commentary": "This is a great movie."], ["stars": 3, "commentary": .null]],
            "empire": [],
        ]))
        #expect(schema.reviews.reviews(of: .jedi).count == 2)
    }

    @Test func starsOutOfRangeAreRefused() async throws {
        let result = try await run("mutation { createReview(episode: NEWHOPE, review: { stars: 6 }) { stars } }")
        #expect(result.errors.map(\.message) == ["stars must be between 0 and 5, got 6."])
        #expect(schema.reviews.reviews(of: .newHope).isEmpty)
    }

    @Test func badVariablesAreReported() async throws {
        let result = try await run("query ($id: ID!) { character(id: $id) { name } }")
        #expect(result.data == nil)
        #expect(result.errors.count == 1)
    }

    @Test func syntaxErrorsAreRejected() async {
        guard case .rejected(let errors) = await schema.execute(GraphQLRequest(query: "{ hero { name }")) else {
            Issue.record("a syntax error must be rejected")
            return
        }
        #expect(errors.count == 1)
    }

    @Test func invalidDocumentsAreRejected() async {
        guard case .rejected(let errors) = await schema.execute(GraphQLRequest(query: "{ hero { height } reviews { stars } }")) else {
            Issue.record("an invalid document must be rejected")
            return
        }
        #expect(errors.count == 2)
    }

    @Test func mutationsCanBeRefused() async {
        let request = GraphQLRequest(
            query: "query Q { hero { name } } mutation M { createReview(episode: JEDI, review: { stars: 1 }) { stars } }",
            operationName: "M")
        guard case .mutationNotAllowed = await schema.execute(request, allowMutations: false) else {
            Issue.record("a mutation must be refused when mutations are not allowed")
            return
        }
        #expect(schema.reviews.reviews(of: .jedi).isEmpty)

        var query = request
        query.operationName = "Q"
        guard case .executed(let result) = await schema.execute(query, allowMutations: false) else {
            Issue.record("a query must run when mutations are not allowed")
            return
        }
        #expect(result == GraphQLResult(data: ["hero": ["name": "R2-D2"]]))
    }
}
