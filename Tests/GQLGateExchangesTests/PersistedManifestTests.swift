@testable import GQLGateExchanges
import GQLGatePipeline
import Testing

/// An Apollo persisted query manifest of `bodies`, each with its SHA-256 as id.
func apolloManifest(_ bodies: [String], ids: [String]? = nil) -> String {
    let operations = bodies.enumerated().map { index, body in
        JSONValue.object([
            ("id", .string(ids?[index] ?? DocumentCache.digest(of: body).hexString)), ("body", .string(body)),
            ("name", .string("Op\(index)")), ("type", .string("query")),
        ])
    }
    return JSONValue.object([
        ("format", .string("apollo-persisted-query-manifest")), ("version", .integer(1)), ("operations", .array(operations)),
    ]).serialized()
}

@Suite struct PersistedManifestTests {
    @Test func readsAnApolloManifest() throws {
        let manifest = try PersistedManifest(text: apolloManifest(["{ a }", "query B { b }"]), path: "m.json")
        #expect(manifest.entries == [
            .init(id: DocumentCache.digest(of: "{ a }").hexString, text: "{ a }"),
            .init(id: DocumentCache.digest(of: "query B { b }").hexString, text: "query B { b }"),
        ])
    }

    @Test func readsARelayMap() throws {
        let manifest = try PersistedManifest(text: #"{"5f1a": "query A { a }", "b2": "{ b }"}"#, path: "relay.json")
        #expect(manifest.entries == [.init(id: "5f1a", text: "query A { a }"), .init(id: "b2", text: "{ b }")])
    }

    @Test(arguments: [
        ("[1, 2]", "m.json: expected a JSON object: an Apollo persisted query manifest or a Relay-style map of id to document"),
        (#"{"a": "{ a }", "b": 3}"#, #"m.json: id "b": expected a document text"#),
        (#"{"format": "apollo-persisted-query-manifest", "version": 2, "operations": []}"#, #"m.json: "version" must be 1"#),
        (#"{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [{"body": "{ a }"}]}"#,
         #"m.json: operations[0]: "id" must be a string"#),
        ("{ not json", "m.json: not JSON"),
    ])
    func namesTheFileAndTheEntryAtFault(text: String, expected: String) {
        #expect(throws: PersistedManifest.Failure.self) { try PersistedManifest(text: text, path: "m.json") }
        do {
            _ = try PersistedManifest(text: text, path: "m.json")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }

    @Test func anApolloIDMustBeTheSHA256OfItsBody() {
        let wrong = String(repeating: "0", count: 64)
        do {
            _ = try PersistedManifest(text: apolloManifest(["{ a }"], ids: [wrong]), path: "m.json")
            Issue.record("a wrong hash was accepted")
        } catch {
            #expect(error.description == "m.json: operations[0] (id \(wrong)): the id is not the SHA-256 of the body")
        }
    }
}
