@testable import GQLGatePipeline
import Testing

/// Nesting is bounded on the text, before parsing, and through fragments.
@Suite struct DocumentNestingTests {
    private let limit = DocumentNesting.limit

    /// `{ a { a { … b } } }` nesting `levels` braces in all.
    private func nestedFields(_ levels: Int) -> String {
        "{" + String(repeating: "a{", count: levels - 1) + "b" + String(repeating: "}", count: levels)
    }

    private func isTooComplex(_ query: String) -> Bool {
        do {
            _ = try DocumentCache().analyse(query)
            return false
        } catch {
            return error.code == "QUERY_TOO_COMPLEX"
        }
    }

    @Test func fieldsNestedToTheBoundAreAnalysedAndOnePastIsRefused() throws {
        let document = try DocumentCache().analyse(nestedFields(limit))
        #expect(document.operations.first?.shape.depth == limit)
        #expect(isTooComplex(nestedFields(limit + 1)))
    }

    @Test func theIssuesReproductionsAreRefusedBeforeParsing() {
        let cache = DocumentCache()
        let fields = "{" + String(repeating: "a{", count: 3500) + "b" + String(repeating: "}", count: 3501)
        let inline = "{" + String(repeating: "... on Q {", count: 2500) + "a" + String(repeating: "}", count: 2501)
        let lists = "{ hero(x: " + String(repeating: "[", count: 300) + "1" + String(repeating: "]", count: 300) + ") { name } }"
        for query in [fields, inline, lists] {
            #expect(throws: GatewayError.self) { _ = try cache.analyse(query) }
            #expect(isTooComplex(query))
        }
        #expect(cache.parseCount == 0)
    }

    @Test(arguments: [("(", ")"), ("[", "]"), ("{a: ", "}")])
    func argumentValuesCountToo(open: String, close: String) {
        let value = { (levels: Int) in String(repeating: open, count: levels) + "1" + String(repeating: close, count: levels) }
        // The selection set and the argument list take two levels.
        #expect(DocumentNesting.firstBracketPastLimit("{ f(x: \(value(limit - 2))) }") == nil)
        #expect(DocumentNesting.firstBracketPastLimit("{ f(x: \(value(limit - 1))) }") != nil)
    }

    @Test func bracketsInStringsAndCommentsDoNotCount() {
        let brackets = String(repeating: "{[(", count: limit)
        let query = """
            # \(brackets)
            { a(s: "\(brackets)\\"", t: \"\"\"\(brackets)\\\"\"\" \"\"\") }
            """
        #expect(DocumentNesting.firstBracketPastLimit(query) == nil)
        #expect(throws: Never.self) { _ = try DocumentCache().analyse(query) }
    }

    @Test func aChainOfFragmentsPastTheBoundIsRefused() {
        let chain = { (count: Int) in
            "{ ...F0 } " + (0..<count).map { "fragment F\($0) on Q { ...F\($0 + 1) }" }.joined(separator: " ")
                + " fragment F\(count) on Q { a }"
        }
        #expect(!isTooComplex(chain(limit - 2)))
        #expect(isTooComplex(chain(limit * 4)))
    }

    @Test func aFragmentMeasuredShallowIsRefusedWhereSpreadTooDeep() {
        // F is measured first under one field, then spread again under 250.
        let deep = String(repeating: "a{", count: 250) + "...F" + String(repeating: "}", count: 250)
        let fragment = "fragment F on Q { " + String(repeating: "b{", count: 20) + "c" + String(repeating: "}", count: 20) + " }"
        #expect(isTooComplex("{ x { ...F } \(deep) } \(fragment)"))
        #expect(!isTooComplex("{ x { ...F } } \(fragment)"))
    }
}
