package import GQLGatePipeline

/// What may run of the operations sent as text: with `library`, text whose
/// definitions are a listed document's (whitespace, comments and definition
/// order ignored) runs; other text is noted (`logUnknown`) and, with
/// `safelist`, refused with 403 `QUERY_NOT_IN_SAFELIST`. Without
/// `introspection`, an unlisted operation that selects `__schema` or
/// `__type` gets 403 `INTROSPECTION_DISABLED`. Operations asked for by id
/// (`PersistedDocumentExchange`) are listed and pass. Place after
/// `DocumentExchange`; reads the analysis the document cache holds, so a
/// repeated text costs a look-up.
package struct SafelistExchange: InlineExchange {
    /// The rules.
    package struct Rules: Sendable {
        /// `persisted_documents.safelist`.
        package var safelist: Bool
        /// `persisted_documents.log_unknown`.
        package var logUnknown: Bool
        /// `limits.introspection`.
        package var introspection: Bool

        package init(safelist: Bool = false, logUnknown: Bool = false, introspection: Bool = true) {
            self.safelist = safelist
            self.logUnknown = logUnknown
            self.introspection = introspection
        }
    }

    private let library: PersistedDocumentLibrary?
    private let rules: Rules

    /// - Parameter library: the manifests; nil when there are none (only `introspection` applies).
    package init(library: PersistedDocumentLibrary?, rules: Rules) {
        self.library = library
        self.rules = rules
    }

    /// Goes on on a loop (`handle`) when the manifests must be read first.
    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        try prepare(&operation) { $0.documentsAtOnce() } ? .passOn : .onLoop
    }

    /// Reads the manifests when they changed (on a loop), then checks the operation.
    package func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        var operation = operation
        _ = try prepare(&operation) { $0.documents }
        return try await next(operation)
    }

    /// - Parameter documents: the library's documents, asked only for an operation sent as text
    ///   (one run by id checks no file here); nil when they cannot be had now.
    /// - Returns: false, with `operation` untouched, when `documents` gave none.
    private func prepare(_ operation: inout Operation,
                         documents: (PersistedDocumentLibrary) -> PersistedDocumentSet?) throws(GatewayError) -> Bool {
        guard operation.persistedDocumentID == nil, let document = operation.document, let selected = operation.selected else { return true }
        let refusesIntrospection = !rules.introspection && selected.shape.introspects
        guard let library else {
            if refusesIntrospection { throw .introspectionDisabled }
            return true
        }
        guard let documents = documents(library) else { return false }
        if documents.lists(document) {
            operation.record(.persistedDocument(.listedText))
        } else if refusesIntrospection {
            operation.record(.persistedDocument(.refused))
            throw .introspectionDisabled
        } else {
            if rules.logUnknown { operation.record(.unlistedOperation(name: selected.name, documentSHA256: document.sha256)) }
            guard !rules.safelist else {
                operation.record(.persistedDocument(.refused))
                throw .queryNotInSafelist
            }
            operation.record(.persistedDocument(.unlistedText))
        }
        return true
    }
}
