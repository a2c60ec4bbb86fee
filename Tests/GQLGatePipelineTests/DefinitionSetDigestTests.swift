@testable import GQLGatePipeline
import Testing

@Suite struct DefinitionSetDigestTests {
    private func digest(_ query: String) throws -> DocumentDigest {
        try DocumentCache(capacity: 4).analyse(query).definitionSetDigest
    }

    private let listed = """
        query Hero($id: ID!) { hero(id: $id) { ...Name friends { ...Name } } }
        fragment Name on Character { name }
        """

    @Test func whitespaceCommasAndCommentsDoNotCount() throws {
        let reformatted = """
            # the hero
            query Hero($id: ID!) {
              hero(id: $id) { ...Name, friends { ...Name } } # and friends
            }
            fragment Name on Character {
              name
            }
            """
        #expect(try digest(reformatted) == digest(listed))
    }

    @Test func theOrderOfDefinitionsDoesNotCount() throws {
        let reordered = "fragment Name on Character { name } query Hero($id: ID!) { hero(id: $id) { ...Name friends { ...Name } } }"
        #expect(try digest(reordered) == digest(listed))
    }

    @Test func anyOtherDifferenceCounts() throws {
        let others = [
            "query Hero($id: ID!) { hero(id: $id) { ...Name friends { ...Name } } } fragment Name on Character { name id }",
            "query Hero($id: ID!) { hero(id: $id) { ...Name friends { ...Name } } }",
            "query Hero($id: ID!) { hero(id: $id) { friends { ...Name } ...Name } } fragment Name on Character { name }",
            "query Hero($id: ID! = \"1\") { hero(id: $id) { ...Name friends { ...Name } } } fragment Name on Character { name }",
        ]
        let listedDigest = try digest(listed)
        for other in others { #expect(try digest(other) != listedDigest, "\(other)") }
    }

    @Test func bracketsInsideArgumentsDoNotSplitADefinition() throws {
        let a = "query A { a(input: {x: [1, {y: 2}]}) { b } } query B { c }"
        let b = "query B { c } query A { a(input: {x: [1, {y: 2}]}) { b } }"
        #expect(try digest(a) == digest(b))
        #expect(try digest(a) != digest("query A { a(input: {x: [1, {y: 3}]}) { b } } query B { c }"))
    }

    @Test func introspectionIsSeenThroughFragmentsButTypenameIsNot() throws {
        let cache = DocumentCache(capacity: 8)
        #expect(try cache.analyse("{ __schema { types { name } } }").operations[0].shape.introspects)
        #expect(try cache.analyse("{ t: __type(name: \"A\") { name } }").operations[0].shape.introspects)
        #expect(try cache.analyse("query { ...F } fragment F on Query { __schema { queryType { name } } }").operations[0].shape.introspects)
        #expect(try !cache.analyse("{ __typename hero { __typename name } }").operations[0].shape.introspects)
    }
}

@Suite struct AnalysisOfTextTests {
    @Test func anAnalysisIsOfItsTextsExactBytesOnly() throws {
        let cache = DocumentCache(capacity: 4)
        let composed = "{ f(s: \"\u{E9}\") }"
        let document = try cache.analyse(composed)
        #expect(document.isAnalysis(of: composed))
        #expect(document.isAnalysis(of: String(decoding: Array(composed.utf8), as: UTF8.self)))
        #expect(!document.isAnalysis(of: "{ f(s: \"e\u{301}\") }"))  // canonically equivalent, other bytes
        #expect(!document.isAnalysis(of: "{ f(s: \"x\") }"))
    }
}
