@testable import GQLGateDemo
import GQLGatePipeline
import GraphQL
import Testing

@Suite struct DemoNestingTests {
    private let schema: DemoSchema

    init() throws {
        schema = try DemoSchema()
    }

    /// The messages of the errors `execute` refused `query` with, or nil when it ran.
    private func refusal(_ query: String, variables: [String: Map] = [:]) async -> [String]? {
        guard case .rejected(let errors) = await schema.execute(GraphQL.GraphQLRequest(query: query, variables: variables)) else { return nil }
        return errors.map(\.message)
    }

    /// `{"a": {"a": … {} …}}`, `levels` objects deep (what a JSON body can hold is at most
    /// `JSONReader.maximumDepth` deep).
    private static func nestedObject(_ levels: Int) -> JSONValue {
        (1..<levels).reduce(JSONValue.object([])) { inner, _ in .object([("a", inner)]) }
    }

    @Test func aVariableTypeTwentyThousandListsDeepIsRefusedBeforeParsing() async {
        let query = "query($v: " + String(repeating: "[", count: 20_000) + "Int" + String(repeating: "]", count: 20_000) + ") { hero { name } }"
        #expect(await refusal(query) == ["The document nests deeper than 64 levels of braces, brackets and parentheses."])
    }

    @Test func aStringLeftOpenAtTheEndIsASyntaxError() async {
        let messages = await refusal(#"{ hero(id: "\u12"#)
        #expect(messages?.first?.contains("Syntax Error") == true, "\(String(describing: messages))")
    }

    @Test func aSyntaxErrorIsLocatedInTheClientsText() async {
        guard case .rejected(let errors) = await schema.execute(GraphQL.GraphQLRequest(query: "{\n  hero {")) else {
            Issue.record("a syntax error ran")
            return
        }
        #expect(errors.map(\.message) == ["Syntax Error: Expected Name, found <EOF>"])
        #expect(errors.map(\.locations) == [[SourceLocation(line: 2, column: 9)]])
    }

    @Test func sixtyFourLevelsAreAllowedAndSixtyFiveAreNot() async {
        func document(_ lists: Int) -> String {
            "query($v: " + String(repeating: "[", count: lists) + "Int" + String(repeating: "]", count: lists) + ") { hero { name } }"
        }
        #expect(DemoNesting.nests(document(63), deeperThan: 64) == false)
        #expect(DemoNesting.nests(document(64), deeperThan: 64))
        #expect(await refusal(document(63))?.contains { $0.contains("nests deeper") } == false, "refused for not using $v only")
    }

    @Test func bracketsInStringsAndCommentsDoNotCount() {
        let open = String(repeating: "[{(", count: 30)
        #expect(!DemoNesting.nests(#"{ hero(episode: "\#(open)\"\#(open)") { name } }"#, deeperThan: 2))
        #expect(!DemoNesting.nests("{ hero # \(open)\n { name } }", deeperThan: 2))
        #expect(!DemoNesting.nests(#"{ hero(x: """\#(open) \""" \#(open)""") { name } }"#, deeperThan: 2))
        #expect(DemoNesting.nests(#"{ hero(x: "a") { friends { name } } }"#, deeperThan: 2))
    }

    @Test func deepVariablesAreRefusedWithAClearError() async {
        let deep = DemoWireFormat.map(Self.nestedObject(JSONReader.maximumDepth))
        let query = "mutation($r: ReviewInput!) { createReview(episode: JEDI, review: $r) { stars } }"
        #expect(await refusal(query, variables: ["r": deep]) == ["The variables nest deeper than 64 levels of objects and lists."])
        #expect(await refusal(query, variables: ["r": DemoWireFormat.map(Self.nestedObject(63))]) == nil, "runs, and fails on its fields")
        #expect(await refusal(query, variables: ["r": DemoWireFormat.map(Self.nestedObject(64))]) != nil)
    }

    /// Decoding a `Map` with `JSONDecoder` took time exponential in the nesting (twice per
    /// level); the conversion from the request's JSON reads each value once.
    @Test func variablesFromJSONAreConvertedInOnePass() throws {
        let request = GQLGatePipeline.GraphQLRequest(query: "{ hero { name } }", variables: .object([("r", Self.nestedObject(60))]))
        let converted = try DemoWireFormat.graphQLRequest(request).get()
        var value = converted.variables["r"]
        var levels = 0
        while case .dictionary(let members)? = value {
            levels += 1
            value = members["a"]
        }
        #expect(levels == 60)
        let scalars = GQLGatePipeline.GraphQLRequest(
            query: "{ hero { name } }",
            variables: .object([("i", .integer(3)), ("d", JSONValue(2.5)), ("s", .string("x")), ("b", .bool(true)), ("n", .null),
                                ("l", .array([.integer(1)]))]))
        #expect(try DemoWireFormat.graphQLRequest(scalars).get().variables
            == ["i": .number(Number(3)), "d": .number(Number(2.5)), "s": "x", "b": true, "n": .null, "l": [.number(Number(1))]])
    }

    @Test func aChainOfMoreThanSixtyFourFragmentsIsRefused() async {
        func chain(_ count: Int) -> String {
            "query { ...F0 } " + (0..<count).map { "fragment F\($0) on Query { ...F\($0 + 1) }" }.joined(separator: " ")
                + " fragment F\(count) on Query { hero { name } }"
        }
        #expect(await refusal(chain(20_000)) == ["The document defines 20001 fragments; at most 64 are allowed."])
        #expect(await refusal(chain(63)) == nil)
        #expect(await refusal(chain(64)) != nil)
    }
}
