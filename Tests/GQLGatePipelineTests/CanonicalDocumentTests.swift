@testable import GQLGatePipeline
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

    private func argument(_ query: String) throws -> Set<String>? {
        try DocumentCache().analyse(query).rootArguments(operationName: nil, variables: nil)["s"]
    }

    @Test func shortBlockStringsAreLeftToTheLexer() throws {
        #expect(LongBlockStrings.rewritten(query(lines: LongBlockStrings.lineLimit - 5)) == nil)
        #expect(try argument(query(lines: 10)) == [value(lines: 10)])
    }

    @Test(arguments: ["\n", "\r\n", "\r"])
    func longOnesGetTheSameValueAsTheLexerGives(lineBreak: String) throws {
        #expect(LongBlockStrings.rewritten(query(lines: 100, lineBreak: lineBreak)) != nil)
        #expect(try argument(query(lines: 100, lineBreak: lineBreak)) == [value(lines: 100)])
    }

    @Test func aBlockStringOfThirtyThousandLinesIsAnalysed() throws {
        let document = try DocumentCache().analyse("{ hello(s: \"\"\"" + String(repeating: "x\n", count: 30_000) + "\"\"\") }")
        #expect(document.rootArguments(operationName: nil, variables: nil)["s"]?.first?.count == 30_000 * 2 - 1)
    }

    @Test func laterTokensKeepTheirLineNumbersInSyntaxErrors() throws {
        let text = "{ hello(s: \"\"\"" + String(repeating: "x\n", count: 100) + "\"\"\")\n  } }"
        #expect {
            _ = try DocumentCache().analyse(text)
        } throws: { error in
            (error as? GatewayError)?.message.contains("(102:") == true
        }
    }
}
