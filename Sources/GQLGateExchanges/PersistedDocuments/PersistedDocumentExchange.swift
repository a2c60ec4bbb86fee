package import GQLGatePipeline

/// Requests by id: an operation whose `documentId`, `doc_id` or `id` names a
/// document in the manifests runs that document (404
/// `PERSISTED_QUERY_NOT_IN_LIST` when none does), as does one whose
/// `extensions.persistedQuery.sha256Hash` is a listed document's SHA-256
/// (any other hash is left to APQ). With `requireID`, an operation sent as
/// text gets 400 `PERSISTED_QUERY_ID_REQUIRED`. Place first, before APQ and
/// `DocumentExchange`.
package struct PersistedDocumentExchange: InlineExchange {
    private let library: PersistedDocumentLibrary
    private let requireID: Bool

    package init(library: PersistedDocumentLibrary, requireID: Bool) {
        self.library = library
        self.requireID = requireID
    }

    /// Goes on on a loop (`handle`) when the manifests must be read first.
    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        try prepare(&operation) { library.documentsAtOnce() } ? .passOn : .onLoop
    }

    /// Reads the manifests when they changed (on a loop), then runs the operation's document.
    package func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        var operation = operation
        _ = try prepare(&operation) { library.documents }
        return try await next(operation)
    }

    /// - Parameter documents: the manifests' documents, asked only by a request that names one
    ///   (so an operation sent as text checks no file here); nil when they cannot be had now.
    /// - Returns: false, with `operation` untouched, when `documents` gave none.
    private func prepare(_ operation: inout Operation, documents: () -> PersistedDocumentSet?) throws(GatewayError) -> Bool {
        if let id = operation.request.documentID {
            guard let documents = documents() else { return false }
            guard let listed = documents.document(forID: id) else {
                operation.record(.persistedDocument(.idUnknown))
                throw .persistedQueryNotInList(id)
            }
            run(listed, id: id, for: &operation)
        } else if let hash = Self.apqHash(in: operation.request) {
            guard let documents = documents() else { return false }
            let listed = documents.document(forSHA256: hash)
            if let listed, (operation.request.query ?? "").isEmpty || operation.request.query == listed.text {
                run(listed, id: hash, for: &operation)
            } else if operation.request.query != nil, requireID {
                try refuseText(operation)
            }
        } else if operation.request.query != nil, requireID {
            try refuseText(operation)
        }
        return true
    }

    private func refuseText(_ operation: borrowing Operation) throws(GatewayError) {
        operation.record(.persistedDocument(.refused))
        throw .persistedQueryIDRequired
    }

    /// Runs the listed document in place of what the client sent.
    private func run(_ listed: PersistedDocumentSet.Listed, id: String, for operation: inout Operation) {
        operation.request.query = listed.text
        operation.document = listed.document  // its analysis: the document stage need not look it up
        operation.request.documentID = nil
        if operation.request.extensions?["persistedQuery"] != nil {
            operation.request.extensions = Self.removingPersistedQuery(from: operation.request.extensions)
        }
        operation.persistedDocumentID = id
        operation.record(.persistedDocumentUsed(id: id))
        operation.record(.persistedDocument(.idFound))
    }

    /// The lower-case `extensions.persistedQuery.sha256Hash`, when it is a string.
    private static func apqHash(in request: GraphQLRequest) -> String? {
        guard case .string(let hash) = request.extensions?["persistedQuery"]?["sha256Hash"] else { return nil }
        return hash.lowercased()
    }

    private static func removingPersistedQuery(from extensions: JSONValue?) -> JSONValue? {
        guard case .object(let members) = extensions else { return extensions }
        let kept = members.filter { $0.key != "persistedQuery" }
        return kept.isEmpty ? nil : .object(kept)
    }
}
