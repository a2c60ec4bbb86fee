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
/// With a `shared` tier (`apq.store: redis`) memory stays in front of it: a
/// hash memory holds is decided at once, as without one. A hash it does not
/// hold, and each registration, are decided on a loop (`handle`): the hash
/// is looked up in the tier (found: kept in memory and used; its SHA-256
/// checked like a client's), and a registration is told to the tier while
/// the request goes on, the answer waiting for both so that the next request
/// to any replica finds the hash. A tier that cannot answer leaves each
/// replica with its own memory, as without one.
///
/// `persistedQuery` is removed from the extensions sent upstream. Requests
/// without it are forwarded untouched. Place first, before `DocumentExchange`
/// (which needs the query).
package struct APQExchange: InlineExchange {
    private let store: PersistedQueryStore
    private let shared: (any SharedPersistedQueries)?
    private let registers: Bool

    /// - Parameter shared: the queries every replica shares, behind `store`; nil: `store` alone.
    package init(store: PersistedQueryStore = PersistedQueryStore(), shared: (any SharedPersistedQueries)? = nil,
                 registers: Bool = true) {
        self.store = store
        self.shared = shared
        self.registers = registers
    }

    /// Decides at once from memory; `.onLoop`, the operation untouched, when
    /// the shared tier must be asked or told.
    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        guard let persisted = operation.request.extensions?["persistedQuery"] else { return .passOn }
        let hash = try Self.hash(in: persisted)
        if let query = operation.request.query {
            guard DocumentCache.digest(of: query).hexString == hash else { throw .persistedQueryHashMismatch }
            if registers {
                if shared != nil { return .onLoop }
                store.register(query, hash: hash)
            }
        } else {
            guard let query = store.query(for: hash) else {
                if shared != nil { return .onLoop }
                throw .persistedQueryNotFound
            }
            operation.request.query = query
        }
        operation.request.extensions = Self.removingPersistedQuery(from: operation.request.extensions)
        return .passOn
    }

    /// `decide`, with the shared tier asked for a hash memory does not hold
    /// and told of a registration (at the same time as the rest of the
    /// pipeline runs; the answer waits for it).
    package func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        var operation = operation
        guard let persisted = operation.request.extensions?["persistedQuery"] else { return try await next(operation) }
        let hash = try Self.hash(in: persisted)
        if let query = operation.request.query {
            guard DocumentCache.digest(of: query).hexString == hash else { throw GatewayError.persistedQueryHashMismatch }
            operation.request.extensions = Self.removingPersistedQuery(from: operation.request.extensions)
            guard registers else { return try await next(operation) }
            store.register(query, hash: hash)
            guard let shared else { return try await next(operation) }
            async let told = shared.register(hash: hash, document: query)
            let answer = try await next(operation)
            _ = await told
            return answer
        }
        if let query = store.query(for: hash) {
            operation.request.query = query
        } else if let shared, let query = await shared.document(forHash: hash), DocumentCache.digest(of: query).hexString == hash {
            store.register(query, hash: hash)
            operation.request.query = query
        } else {
            throw GatewayError.persistedQueryNotFound
        }
        operation.request.extensions = Self.removingPersistedQuery(from: operation.request.extensions)
        return try await next(operation)
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
