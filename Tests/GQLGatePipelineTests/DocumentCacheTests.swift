@testable import GQLGatePipeline
import Testing

/// The error analysing `query` throws, or nil.
private func failure(_ cache: DocumentCache, _ query: String) -> GatewayError? {
    do {
        _ = try cache.analyse(query)
        return nil
    } catch {
        return error
    }
}

@Suite struct DocumentCacheTests {
    @Test func sameTextIsParsedOnce() throws {
        let cache = DocumentCache()
        let first = try cache.analyse("{ hello }")
        let second = try cache.analyse("{ hello }")
        #expect(first === second)
        #expect(cache.parseCount == 1)
        #expect(cache.count == 1)
    }

    @Test func differentTextIsParsedAgain() throws {
        let cache = DocumentCache()
        _ = try cache.analyse("{ hello }")
        _ = try cache.analyse("{ world }")
        _ = try cache.analyse("{  hello }")
        _ = try cache.analyse("{ world }")
        #expect(cache.parseCount == 3)
        #expect(cache.count == 3)
    }

    /// GraphQLSwift's lexer reads past an escape without checking for the end
    /// of the text; each of these, found by the DocumentAnalysis fuzzer or
    /// derived from it, trapped the process before the text was padded.
    @Test(arguments: [#"{"\\\ua\"#, #"{ a(x: "\u12"#, #"{ a(x: "\u"#, #"{ a(x: "\"#, #"{ a(x: """\"#, #"{ a(x: """\""#, "{ a ..", #"""#])
    func stringsLeftOpenAtTheEndAreSyntaxErrors(query: String) {
        #expect(failure(DocumentCache(), query)?.code == "GRAPHQL_PARSE_FAILED")
    }

    @Test func syntaxErrorsAreParseFailedAndNotCached() throws {
        let cache = DocumentCache()
        for _ in 0..<2 {
            let error = try #require(failure(cache, "{ hello "))
            #expect(error.status == 400)
            #expect(error.code == "GRAPHQL_PARSE_FAILED")
            #expect(error.message == "Syntax Error: Expected Name, found <EOF>")
            #expect(error.locations == [DocumentLocation(line: 1, column: 9)])
        }
        #expect(failure(cache, "")?.code == "GRAPHQL_PARSE_FAILED")
        #expect(failure(cache, "query { a(x: ) }")?.code == "GRAPHQL_PARSE_FAILED")
        #expect(cache.count == 0)
        #expect(cache.parseCount == 0)
    }

    /// A document that ends early is located where the client's text ends, not in the line breaks
    /// the parser is given after it; the message names no place of its own.
    @Test(arguments: [
        ("{ hero {", "1:9"), ("{ hero {\n", "2:1"), ("query {\n  hero {\n    name\n", "4:1"), ("query {\r\n  hero(id: )\r\n}", "2:12"),
        ("{\r  hero {\r    name", "3:9"), ("{ heros(nom: \"Léïa 🚀\") {", "1:25"), ("{ héros }", "1:4"), ("{ a }\n}", "2:1"), ("", "1:1"),
    ])
    func syntaxErrorsAreLocatedInTheClientsText(query: String, location: String) {
        let error = failure(DocumentCache(), query)
        #expect(error?.locations.map(\.description) == [location])
        #expect(error?.message.hasPrefix("Syntax Error: ") == true, "\(String(describing: error?.message))")
        #expect(error?.message.contains("\n") == false)
    }

    @Test func leastRecentlyUsedDocumentIsEvictedAtCapacity() throws {
        let cache = DocumentCache(capacity: 2)
        _ = try cache.analyse("{ a }")
        _ = try cache.analyse("{ b }")
        _ = try cache.analyse("{ a }")
        _ = try cache.analyse("{ c }")  // evicts { b }
        #expect(cache.count == 2)
        #expect(cache.parseCount == 3)
        _ = try cache.analyse("{ a }")
        _ = try cache.analyse("{ c }")
        #expect(cache.parseCount == 3)
        _ = try cache.analyse("{ b }")  // re-parsed, evicts { a }
        #expect(cache.parseCount == 4)
        _ = try cache.analyse("{ a }")
        #expect(cache.parseCount == 5)
        #expect(cache.count == 2)
    }

    @Test func textsThatDifferOnlyInUnicodeNormalisationAreDifferentDocuments() throws {
        let cache = DocumentCache()
        let composed = "{ search(text: \"caf\u{E9}\") }"
        let decomposed = "{ search(text: \"cafe\u{301}\") }"
        #expect(composed == decomposed)  // equal as Swift strings, not as bytes
        let first = try cache.analyse(composed)
        let second = try cache.analyse(decomposed)
        #expect(first !== second)
        #expect(first.sha256 != second.sha256)
        #expect(cache.parseCount == 2)
        #expect(try cache.analyse(decomposed) === second)
        #expect(cache.cachedDocument(for: composed) === first)
    }

    @Test func anEvictedTextIsNotFoundByItsText() throws {
        let cache = DocumentCache(capacity: 1)
        let a = try cache.analyse("{ a }")
        #expect(cache.cachedDocument(for: "{ a }") === a)
        _ = try cache.analyse("{ b }")  // evicts { a }
        #expect(cache.cachedDocument(for: "{ a }") == nil)
        #expect(try cache.analyse("{ a }") !== a)
        #expect(cache.parseCount == 3)
    }

    @Test func sha256IsTheHexDigestOfTheText() throws {
        let cache = DocumentCache()
        #expect(try cache.analyse("{ hello }").sha256 == "001c3174e099bd72b729d0c0a529ba9f5a740c446e2a6e1d71b283cb84ec3065")
        #expect(try cache.analyse(#"{ a(s: "é") }"#).sha256 == "fd6f2615994b7a309db4ad0993a1a0390e9b6b82273ae77abb3081e1c45bca22")
        #expect(DocumentCache.digest(of: "").hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(DocumentCache.digest(of: "{ hello }").hexString == "001c3174e099bd72b729d0c0a529ba9f5a740c446e2a6e1d71b283cb84ec3065")
    }

    @Test func keepsTheParsedDocument() throws {
        let analysed = try DocumentCache().analyse("query A { a } fragment F on Query { b }")
        #expect(analysed.document.definitions.count == 2)
    }

    @Test func concurrentCallersShareTheCache() async throws {
        let cache = DocumentCache()
        _ = try cache.analyse("{ shared }")
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try cache.analyse("{ shared }").sha256 } }
            for try await hash in group { #expect(hash == DocumentCache.digest(of: "{ shared }").hexString) }
        }
        #expect(cache.parseCount == 1)
    }
}
