import Graphiti
package import GraphQL
import struct GQLGatePipeline.ClientSyntaxError
import struct GQLGatePipeline.ParserInput

/// What became of a GraphQL request run against the demo schema.
package enum DemoExecutionResult: Sendable {
    /// The document was valid and ran; the result may still hold field errors.
    case executed(GraphQLResult)
    /// The document did not parse or validate; nothing ran.
    case rejected([GraphQLError])
    /// The selected operation is a mutation, but only queries were allowed.
    case mutationNotAllowed
}

/// The Star Wars schema of the demo, and the way to run requests against it.
///
/// ```graphql
/// enum Episode { NEWHOPE EMPIRE JEDI }
/// interface Character { id: ID!  name: String!  friends: [Character!]!  appearsIn: [Episode!]! }
/// type Human implements Character { ... homePlanet: String }
/// type Droid implements Character { ... primaryFunction: String! }
/// type Review { id: ID!  episode: Episode  stars: Int!  commentary: String }
/// input ReviewInput { stars: Int!  commentary: String }
/// type Query {
///   hero(episode: Episode): Character
///   character(id: ID!): Character
///   reviews(episode: Episode!): [Review!]!
/// }
/// type Mutation { createReview(episode: Episode!, review: ReviewInput!): Review! }
/// type Subscription { reviewAdded(episode: Episode): Review! }
/// ```
///
/// `reviewAdded` yields every review created from then on for its episode, or
/// for every episode when the argument is left out. Subscriptions run through
/// `start(_:)` (the demo serves them over WebSocket); `execute(_:)` refuses them.
package final class DemoSchema: Sendable {
    /// Where the reviews created through this schema are kept.
    package let reviews: ReviewStore
    /// The executable schema.
    package let graphQLSchema: GraphQLSchema
    let resolver: DemoResolver

    /// Builds the schema; it fails only if the schema definition itself is invalid.
    package init(reviews: ReviewStore = ReviewStore()) throws {
        self.reviews = reviews
        resolver = DemoResolver(reviews: reviews)
        graphQLSchema = try Self.build().schema
        let problems = validateSchema(schema: graphQLSchema)
        guard problems.isEmpty else { throw GraphQLErrors(problems) }
    }

    /// The schema in GraphQL SDL.
    var sdl: String {
        printSchema(schema: graphQLSchema)
    }

    /// Parses, validates and runs `request`. With `allowMutations` false (for
    /// GET requests, which must not change anything) a mutation is refused
    /// before it runs. A subscription is rejected: it has no single result.
    package func execute(_ request: GraphQLRequest, allowMutations: Bool = true) async -> DemoExecutionResult {
        let document: Document
        switch parseAndValidate(request) {
        case .success(let parsed): document = parsed
        case .failure(let errors): return .rejected(errors.errors)
        }
        switch Self.selectedOperation(in: document, named: request.operationName)?.operation {
        case .subscription?:
            return .rejected([GraphQLError(message: Self.subscriptionOverHTTP)])
        case .mutation? where !allowMutations:
            return .mutationNotAllowed
        default:
            break
        }
        return await execute(document, request)
    }

    /// Why `execute(_:)` refuses a subscription.
    static let subscriptionOverHTTP =
        "Subscriptions are served over WebSocket (graphql-transport-ws or graphql-ws) at this path, not over plain HTTP."

    /// Parses `request.query` and validates it against the schema, once it is
    /// known not to nest too deeply (see `DemoNesting`).
    func parseAndValidate(_ request: GraphQLRequest) -> Result<Document, GraphQLErrors> {
        if let problem = DemoNesting.problem(in: request) { return .failure(GraphQLErrors([problem])) }
        let document: Document
        let input = ParserInput(request.query)
        do {
            document = try parse(source: Source(body: input.text, name: "GraphQL request"))
        } catch let error as GraphQLError {
            let syntax = ClientSyntaxError(error, input: input)
            let locations = syntax.location.map { [SourceLocation(line: $0.line, column: $0.column)] } ?? []
            return .failure(GraphQLErrors([GraphQLError(message: syntax.message, locations: locations)]))
        } catch {
            return .failure(GraphQLErrors([GraphQLError(error)]))
        }
        if let problem = DemoNesting.problem(in: document) { return .failure(GraphQLErrors([problem])) }
        let problems = validate(schema: graphQLSchema, ast: document)
        return problems.isEmpty ? .success(document) : .failure(GraphQLErrors(problems))
    }

    /// Runs a query or mutation that already passed `parseAndValidate`.
    func execute(_ document: Document, _ request: GraphQLRequest) async -> DemoExecutionResult {
        do {
            return .executed(try await GraphQL.execute(
                schema: graphQLSchema, documentAST: document, rootValue: resolver, context: (),
                variableValues: request.variables, operationName: request.operationName))
        } catch let error as GraphQLError {
            return .executed(GraphQLResult(errors: [error]))
        } catch {
            return .executed(GraphQLResult(errors: [GraphQLError(error)]))
        }
    }

    /// The operation that `operationName` picks, as execution will: the one
    /// so named, or the only one when no name is given.
    static func selectedOperation(in document: Document, named name: String?) -> OperationDefinition? {
        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        guard let name else { return operations.count == 1 ? operations.first : nil }
        return operations.first { $0.name?.value == name }
    }

    private static func build() throws -> Schema<DemoResolver, NoContext> {
        try Schema<DemoResolver, NoContext> {
            Scalar(CharacterID.self, as: "ID", serialize: { value, _ in
                guard let id = value as? CharacterID else {
                    throw GraphQLError(message: "ID cannot represent value: \(value)")
                }
                return .string(id.rawValue)
            }, parseValue: { map, _ in
                try GraphQLID.parseValue(value: map)
            }, parseLiteral: { literal, _ in
                try GraphQLID.parseLiteral(valueAST: literal)
            })

            Enum(Episode.self) {
                Value(.newHope).description("Star Wars, released in 1977.")
                Value(.empire).description("The Empire Strikes Back, released in 1980.")
                Value(.jedi).description("Return of the Jedi, released in 1983.")
            }
            .description("One of the films of the original trilogy.")

            Interface((any StarWarsCharacter).self, as: "Character") {
                Field("id", at: \.id)
                Field("name", at: \.name)
                Field("friends", at: \.friends)
                Field("appearsIn", at: \.appearsIn)
            }
            .description("A person or droid of the saga.")

            Type(Human.self, interfaces: [(any StarWarsCharacter).self]) {
                Field("id", at: \.id)
                Field("name", at: \.name)
                Field("friends", at: \.friends)
                Field("appearsIn", at: \.appearsIn)
                Field("homePlanet", at: \.homePlanet)
            }
            .description("A humanoid character.")

            Type(Droid.self, interfaces: [(any StarWarsCharacter).self]) {
                Field("id", at: \.id)
                Field("name", at: \.name)
                Field("friends", at: \.friends)
                Field("appearsIn", at: \.appearsIn)
                Field("primaryFunction", at: \.primaryFunction)
            }
            .description("A mechanical character.")

            Type(Review.self) {
                Field("id", at: \.id)
                Field("episode", at: \.episode)
                Field("stars", at: \.stars)
                Field("commentary", at: \.commentary)
            }
            .description("A viewer's rating of a film.")

            Input(ReviewInput.self) {
                InputField("stars", at: \.stars)
                InputField("commentary", at: \.commentary)
            }
            .description("A rating to submit with createReview.")

            Query {
                Field("hero", at: DemoResolver.hero) {
                    Argument("episode", at: \.episode)
                }
                .description("The hero of a film (Luke for EMPIRE, R2-D2 otherwise), or of the saga when none is given.")

                Field("character", at: DemoResolver.character) {
                    Argument("id", at: \.id)
                }
                .description("The character with this id, or null.")

                Field("reviews", at: DemoResolver.reviews) {
                    Argument("episode", at: \.episode)
                }
                .description("The reviews of a film, oldest first.")
            }

            Mutation {
                Field("createReview", at: DemoResolver.createReview) {
                    Argument("episode", at: \.episode)
                    Argument("review", at: \.review)
                }
                .description("Records a review (stars 0 to 5) and returns it.")
            }

            Subscription {
                SubscriptionField("reviewAdded", as: Review.self, atSub: DemoResolver.reviewAdded) {
                    Argument("episode", at: \.episode)
                }
                .description("Every review created from now on for this film, or for every film when none is given.")
            }
        }
    }
}
