@testable import GQLGatePipeline
import GraphQL
import Testing

/// The canonical text behind `normalisedDigest`: tokens as written, one space apart.
@Suite struct CanonicalDocumentTests {
    private func canonical(_ query: String) -> String {
        String(decoding: CanonicalDocument.bytes(of: query), as: UTF8.self)
    }

    @Test func ignoredTokensGoAndTokensStayAsWritten() {
        let query = "\u{FEFF}# hero\nquery Q($n:Int=-1.5e+3,$s:[String!]!=\"a, b # c\"){hero(n:$n,s:$s)@skip(if:false){...F ... on Droid{ id }}}"
        #expect(canonical(query) == "query Q ( $ n : Int = -1.5e+3 $ s : [ String ! ] ! = \"a, b # c\" ) { hero ( n : $ n s : $ s ) "
            + "@ skip ( if : false ) { ... F ... on Droid { id } } }")
    }

    @Test func blockStringsAndEscapedQuotesAreOneToken() {
        #expect(canonical(#"{ a(x: """ one \""" "two" """, y: "q\"r") }"#) == #"{ a ( x : """ one \""" "two" """ y : "q\"r" ) }"#)
    }

    @Test func equivalentTextsShareTheDigestAndOthersDoNot() throws {
        let cache = DocumentCache()
        let same = ["query Q { hero(episode: JEDI) { name } }", "query Q{hero(episode:JEDI){name}}",
                    "query Q {\n  hero(episode: JEDI,) { # who\n    name,\n  }\n}\n"]
        #expect(try Set(same.map { try cache.analyse($0).normalisedDigest }).count == 1)
        let different = ["query Q { hero(episode: EMPIRE) { name } }", "query Q { hero(episode: JEDI) { name id } }",
                         "query Q { hero(episode: JEDI) { names } }", #"query Q { hero(episode: "JEDI") { name } }"#]
        let digests = try different.map { try cache.analyse($0).normalisedDigest }
        #expect(Set(digests + [try cache.analyse(same[0]).normalisedDigest]).count == different.count + 1)
    }

    @Test func theThirtyLevelObjectArgumentHasItsCanonicalForm() throws {
        let levels = 30
        let value = String(repeating: "{a: ", count: levels) + "1" + String(repeating: "}", count: levels)
        let document = try DocumentCache().analyse("{ hero(x: \(value)) { name } }")
        let expected = "{ hero ( x : " + String(repeating: "{ a : ", count: levels) + "1" + String(repeating: " }", count: levels)
            + " ) { name } }"
        #expect(document.normalisedDigest == DocumentCache.digest(of: expected).hexString)
    }
}

@Suite struct NormalisedDigestTests {
    @Test func spacingCommasAndCommentsDoNotMatter() throws {
        let cache = DocumentCache()
        let digests = try ["{ hero { name } }", "{hero{name}}", "# the hero\n{ hero { name, } }"].map { try cache.analyse($0).normalisedDigest }
        #expect(Set(digests).count == 1)
        #expect(try cache.analyse("{ hero { id } }").normalisedDigest != digests[0])
    }
}

/// Block strings of many lines are read in linear time, with the spec's value.
@Suite struct LongBlockStringTests {
    /// `hello(s: """…""")` whose block string holds `lines` indented lines between blank ones.
    private func query(lines: Int, lineBreak: String = "\n") -> String {
        let body = (0..<lines).map { "    line \($0) \\\"\"\" \"quoted\"" }.joined(separator: lineBreak)
        return "{ hello(s: \"\"\"" + lineBreak + "  " + lineBreak + body + lineBreak + "   " + lineBreak + "\"\"\") }"
    }

    private func value(lines: Int) -> String {
        (0..<lines).map { "line \($0) \"\"\" \"quoted\"" }.joined(separator: "\n")
    }

    /// The value of the string argument of the query's one root field.
    private func argument(_ query: String) throws -> String? {
        let operation = try DocumentCache().analyse(query).document.definitions.first as? OperationDefinition
        let field = operation?.selectionSet.selections.first as? Field
        return (field?.arguments.first?.value as? StringValue)?.value
    }

    @Test func shortBlockStringsAreLeftToTheLexer() throws {
        #expect(LongBlockStrings.rewritten(query(lines: LongBlockStrings.lineLimit - 5)) == nil)
        #expect(try argument(query(lines: 10)) == value(lines: 10))
    }

    @Test(arguments: ["\n", "\r\n", "\r"])
    func longOnesGetTheSameValueAsTheLexerGives(lineBreak: String) throws {
        #expect(LongBlockStrings.rewritten(query(lines: 100, lineBreak: lineBreak)) != nil)
        #expect(try argument(query(lines: 100, lineBreak: lineBreak)) == value(lines: 100))
    }

    @Test func aBlockStringOfThirtyThousandLinesIsAnalysed() throws {
        #expect(try argument("{ hello(s: \"\"\"" + String(repeating: "x\n", count: 30_000) + "\"\"\") }")?.count == 30_000 * 2 - 1)
    }

    @Test func syntaxErrorsAfterAReplacedBlockStringAreLocatedInTheClientsText() throws {
        let block = "\"\"\"" + String(repeating: "x\n", count: 100) + "\"\"\""
        #expect(LongBlockStrings.rewritten("{ hello(s: \(block)) }") != nil)
        #expect(locations("{ hello(s: \(block))\n  } }") == [DocumentLocation(line: 102, column: 5)])
        #expect(locations("{ hello(s: \(block)) ) }") == [DocumentLocation(line: 101, column: 6)])
        #expect(locations("{ a(s: \(block)) b(s: \(block)) ! }") == [DocumentLocation(line: 201, column: 6)])
    }

    /// Where analysing `query` failed, as the client is told.
    private func locations(_ query: String) -> [DocumentLocation]? {
        do {
            _ = try DocumentCache().analyse(query)
            return nil
        } catch {
            return error.locations
        }
    }
}
