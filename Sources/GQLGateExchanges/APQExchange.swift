package import GQLGatePipeline

/// Automatic persisted queries: a request whose `extensions.persistedQuery`
/// is `{"version": 1, "sha256Hash": "<hex>"}` may leave out the query once
/// the gateway knows it.
///
/// - hash and query: the query's SHA-256 must be the hash (else 400
///   `PERSISTED_QUERY_HASH_MISMATCH`); the query is registered and forwarded;
/// - hash alone: the registered query is filled in and forwarded, or 200
///   `PERSISTED_QUERY_NOT_FOUND` when it is unknown;
/// - another version, or no hash: 400 `BAD_REQUEST`.
///
/// With `registers` false (the operation safelist on), a query sent with
/// its hash is checked and forwarded but never registered.
///
/// `persistedQuery` is removed from the extensions sent upstream. Requests
/// without it are forwarded untouched. Place first, before `DocumentExchange`
/// (which needs the query).
package struct APQExchange: InlineExchange {
    private let store: PersistedQueryStore
    private let registers: Bool

    package init(store: PersistedQueryStore = PersistedQueryStore(), registers: Bool = true) {
        self.store = store
        self.registers = registers
    }

    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        if operation.request.extensions?["persistedQuery"] != nil { operation.request = try resolved(operation.request) }
        return .passOn
    }

    /// `request` as `decide` passes it on: with the registered query filled
    /// in (or the sent one registered) and `persistedQuery` removed; the
    /// request itself when it has no `persistedQuery`.
    private func resolved(_ request: GraphQLRequest) throws(GatewayError) -> GraphQLRequest {
        guard let persisted = request.extensions?["persistedQuery"] else { return request }
        let hash = try Self.hash(in: persisted)
        var request = request
        if let query = request.query {
            guard DocumentCache.digest(of: query).hexString == hash else { throw .persistedQueryHashMismatch }
            if registers { store.register(query, hash: hash) }
        } else {
            guard let query = store.query(for: hash) else { throw .persistedQueryNotFound }
            request.query = query
        }
        request.extensions = Self.removingPersistedQuery(from: request.extensions)
        return request
    }

    /// The lower-case hash of a version 1 `persistedQuery` object.
    static func hash(in persisted: JSONValue) throws(GatewayError) -> String {
        guard persisted.isObject else { throw .badRequest("extensions.persistedQuery must be a JSON object.") }
        guard persisted["version"]?.doubleValue == 1 else {
            throw .badRequest("Unsupported persisted query version; only version 1 is supported.")
        }
        guard case .string(let hash) = persisted["sha256Hash"], hash.utf8.count == 64,
              hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) })
        else {
            throw .badRequest("extensions.persistedQuery.sha256Hash must be a SHA-256 hash in hex.")
        }
        return hash.lowercased()
    }

    private static func removingPersistedQuery(from extensions: JSONValue?) -> JSONValue? {
        guard case .object(let members) = extensions else { return extensions }
        let kept = members.filter { $0.key != "persistedQuery" }
        return kept.isEmpty ? nil : .object(kept)
    }
}
