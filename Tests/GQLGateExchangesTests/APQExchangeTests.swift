import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import Testing

private let typenameHash = "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"

/// An operation carrying `extensions.persistedQuery` (plus `more` extensions).
private func persisted(_ query: String?, hash: String, version: JSONValue = .integer(1),
                       more: [(key: String, value: JSONValue)] = []) -> Operation {
    let persistedQuery = JSONValue.object([("version", version), ("sha256Hash", .string(hash))])
    return Operation(request: GraphQLRequest(query: query, extensions: .object([("persistedQuery", persistedQuery)] + more)),
                     clientTransport: .httpGet, headers: [:], requestID: "req-1")
}

@Suite struct APQExchangeTests {
    @Test func theHashIsTheSHA256OfTheQueryText() {
        #expect(DocumentCache.digest(of: "{__typename}").hexString == typenameHash)
    }

    @Test func anUnknownHashAloneIsNotFoundWith200() async {
        let next = RecordingNext()
        let result = await outcome(of: APQExchange(), persisted(nil, hash: typenameHash), next: next)
        #expect(result == "200 PERSISTED_QUERY_NOT_FOUND")
        #expect(GatewayError.persistedQueryNotFound.headers["Cache-Control"] == "private, no-cache, must-revalidate")
        #expect(next.trace.isEmpty)
    }

    @Test func aQueryWhoseHashDiffersIsRefused() async {
        let next = RecordingNext()
        let result = await outcome(of: APQExchange(), persisted("{ hello }", hash: typenameHash), next: next)
        #expect(result == "400 PERSISTED_QUERY_HASH_MISMATCH")
        #expect(next.trace.isEmpty)
    }

    @Test func aQueryWithItsHashRegistersItForHashOnlyRequests() async throws {
        let store = PersistedQueryStore()
        let exchange = APQExchange(store: store)
        let next = RecordingNext()
        #expect(await outcome(of: exchange, persisted("{__typename}", hash: typenameHash.uppercased()), next: next) == "200 upstream")
        #expect(store.count == 1)
        let more: [(key: String, value: JSONValue)] = [("trace", .bool(true))]
        #expect(await outcome(of: exchange, persisted(nil, hash: typenameHash, more: more), next: next) == "200 upstream")
        let forwarded = try #require(next.operations.last)
        #expect(forwarded.request.query == "{__typename}")
        #expect(forwarded.request.extensions == .object([("trace", .bool(true))]))
        #expect(next.operations.first?.request.extensions == nil)
    }

    @Test(arguments: [
        (JSONValue.integer(2), typenameHash),
        (JSONValue.integer(1), "abc"),
        (JSONValue.integer(1), String(repeating: "z", count: 64)),
    ])
    func otherVersionsAndMalformedHashesAreBadRequests(version: JSONValue, hash: String) async {
        let next = RecordingNext()
        #expect(await outcome(of: APQExchange(), persisted("{__typename}", hash: hash, version: version), next: next) == "400 BAD_REQUEST")
    }

    @Test func requestsWithoutPersistedQueryPassUntouched() async throws {
        let next = RecordingNext()
        _ = await outcome(of: APQExchange(), operation("{ a }", body: #"{"query":"{ a }"}"#), next: next)
        #expect(try #require(next.operations.first).upstreamBody().string == #"{"query":"{ a }"}"#)
    }

    @Test func theStoreIsBoundedByBytes() {
        let store = PersistedQueryStore(maxBytes: 200)
        for i in 0..<5 { store.register(String(repeating: "x", count: 30) + "\(i)", hash: String(repeating: "\(i)", count: 64)) }
        #expect(store.count == 2)
        #expect(store.query(for: String(repeating: "4", count: 64)) != nil)
        #expect(store.query(for: String(repeating: "0", count: 64)) == nil)
    }
}
