import GQLGateCore
package import GQLGatePipeline
import Synchronization

/// Automatic persisted queries towards the upstream (`apq.upstream`), as
/// Apollo's clients speak them: each query and mutation is sent first as its
/// SHA-256 alone (`extensions.persistedQuery`, no `query`); when the upstream
/// answers `PERSISTED_QUERY_NOT_FOUND` it is sent again with the query, which
/// the upstream registers. An upstream answering
/// `PERSISTED_QUERY_NOT_SUPPORTED` gets the plain request at once, and only
/// plain requests from then on. Neither answer ran the operation, so sending
/// again is safe for mutations too. Subscriptions pass untouched. Place
/// first among the upstream stages (before credentials and retries, so each
/// send gets both).
package struct UpstreamAPQExchange: Exchange {
    private let state = State()

    /// Whether the upstream still takes hashes (shared by copies of the exchange).
    private final class State: Sendable {
        let supported = Atomic<Bool>(true)
    }

    package init() {}

    package func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        guard operation.kind == .query || operation.kind == .mutation, let query = operation.request.query,
              state.supported.load(ordering: .relaxed)
        else { return try await next(operation) }
        let hash = DocumentCache.digest(of: query).hexString
        var hashed = operation
        hashed.request.query = nil
        hashed.request.extensions = Self.adding(hash: hash, to: operation.request.extensions)
        guard let answer = try await next(hashed).first() else {
            throw GatewayError.noResult
        }
        switch Self.persistedQueryError(in: answer) {
        case "PERSISTED_QUERY_NOT_FOUND":
            hashed.request.query = query
            return try await next(hashed)
        case "PERSISTED_QUERY_NOT_SUPPORTED":
            state.supported.store(false, ordering: .relaxed)
            return try await next(operation)
        default:
            return .single(answer)
        }
    }

    /// `extensions` with `persistedQuery` for `hash` added.
    static func adding(hash: String, to extensions: JSONValue?) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if case .object(let existing) = extensions { members = existing.filter { $0.key != "persistedQuery" } }
        members.append(("persistedQuery", .object([("version", .integer(1)), ("sha256Hash", .string(hash))])))
        return .object(members)
    }

    /// The code of an APQ error answer (`PERSISTED_QUERY_NOT_FOUND` or
    /// `_NOT_SUPPORTED`, also recognised by the message servers that leave
    /// out the code send); nil for any other answer. Such answers are small
    /// and come with status 200 or 400: larger bodies are not read.
    static func persistedQueryError(in answer: GraphQLResponse) -> String? {
        guard answer.status == 200 || answer.status == 400, answer.body.count <= 1024,
              let body = try? answer.body.withUnsafeBytes({ try JSONReader.read($0) }), body["data"] == nil,
              case .array(let errors) = body["errors"]
        else { return nil }
        for error in errors {
            if case .string(let code) = error["extensions"]?["code"], code.hasPrefix("PERSISTED_QUERY_NOT_") { return code }
            switch error["message"] {
            case .string("PersistedQueryNotFound"): return "PERSISTED_QUERY_NOT_FOUND"
            case .string("PersistedQueryNotSupported"): return "PERSISTED_QUERY_NOT_SUPPORTED"
            default: continue
            }
        }
        return nil
    }
}
