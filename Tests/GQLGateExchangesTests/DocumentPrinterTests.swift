@testable import GQLGateExchanges
import GQLGatePipeline
import Testing

/// The rewriter's printer: one line, every nesting printed once.
@Suite struct DocumentPrinterTests {
    private func printed(_ query: String) throws -> String? {
        DocumentPrinter.print(try DocumentCache().analyse(query).document)
    }

    @Test func everyExecutableNodePrintsAndParsesBackToTheSameText() throws {
        let query = #"query Q($n: Int = -1, $s: [String!]! = ["a"]) @live { hero(n: $n, s: $s, o: { k: "say \"hi\"\n", b: """ x """, z: null, e: JEDI, f: 1.5 }) @skip(if: false) { ...F ... on Droid { id } ... @include(if: true) { name } } } fragment F on Character @d { name }"#
        let once = try #require(try printed(query))
        #expect(once == #"query Q($n: Int = -1, $s: [String!]! = ["a"]) @live { hero(n: $n, s: $s, o: { k: "say \"hi\"\n", b: " x ", z: null, e: JEDI, f: 1.5 }) @skip(if: false) { ...F ... on Droid { id } ... @include(if: true) { name } } } fragment F on Character @d { name }"#)
        #expect(try printed(once) == once)
    }

    @Test func theThirtyLevelObjectArgumentPrintsOnce() throws {
        let value = String(repeating: "{a: ", count: 30) + "1" + String(repeating: "}", count: 30)
        let rewritten = try #require(try DocumentCache().analyse("{ hero(x: \(value)) { name } }").typenamed)
        #expect(rewritten.query == "{ hero(x: " + String(repeating: "{ a: ", count: 30) + "1" + String(repeating: " }", count: 30)
            + ") { name _gqlgate_typename: __typename } }")
    }

    @Test func typeSystemDefinitionsAreNotRewritten() throws {
        #expect(try DocumentCache().analyse("{ hero { name } } type T { a: Int }").typenamed == nil)
    }
}
