package import GQLGatePipeline

/// Parses the operation's document (once per distinct text, through the
/// `DocumentCache`), chooses the operation by `operationName` and records its
/// kind and shape, and notes the selected operation in the operation's
/// record (for the access line, the metrics and the span). Answers 400 for a missing query, a document over
/// `maxDocumentBytes` (checked before parsing), a syntax error, a fragment
/// cycle or an unknown operation; forwards everything else. Must come before
/// any exchange that looks at `operation.kind`.
package struct DocumentExchange: InlineExchange {
    /// Runs one analysis (`analyse`) for the request `requestID`: the gateway
    /// notes it as its loop's work, so the loop watchdog can name the request.
    package typealias AnalysisRunner = @Sendable (
        _ requestID: String, _ analyse: () throws(GatewayError) -> AnalysedDocument
    ) throws(GatewayError) -> AnalysedDocument

    private let cache: DocumentCache
    private let maxDocumentBytes: Int
    private let runAnalysis: AnalysisRunner?

    /// - Parameters:
    ///   - cache: the shared document cache.
    ///   - maxDocumentBytes: longest query text accepted (`limits.max_document_bytes`).
    ///   - runAnalysis: how a parse runs (nil: directly).
    package init(cache: DocumentCache, maxDocumentBytes: Int = 64 * 1024, runAnalysis: AnalysisRunner? = nil) {
        self.cache = cache
        self.maxDocumentBytes = maxDocumentBytes
        self.runAnalysis = runAnalysis
    }

    /// Selects the operation when its text was analysed already; on a loop
    /// (`handle`), with `operation` untouched, when it must be parsed.
    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        let query = try checkedQuery(operation)
        guard let document = Self.given(operation.document, for: query) ?? cache.cachedDocument(for: query) else { return .onLoop }
        try select(in: document, for: &operation)
        return .passOn
    }

    /// Parses the document (on a loop), selects the operation and passes it on.
    package func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        var operation = operation
        let query = try checkedQuery(operation)
        let document = try Self.given(operation.document, for: query) ?? cache.cachedDocument(for: query)
            ?? analyse(query, for: operation.requestID)
        try select(in: document, for: &operation)
        return try await next(operation)
    }

    /// The analysis an earlier stage gave the operation with its text (a
    /// persisted document's), when it is still that text's: no look-up then.
    private static func given(_ document: AnalysedDocument?, for query: String) -> AnalysedDocument? {
        guard let document, document.isAnalysis(of: query) else { return nil }
        return document
    }

    /// The operation's query text, when there is one and it is not over `maxDocumentBytes`.
    private func checkedQuery(_ operation: borrowing Operation) throws(GatewayError) -> String {
        guard let query = operation.request.query, !query.isEmpty else {
            throw GatewayError.badRequest("The request has no \"query\".")
        }
        let size = query.utf8.count
        guard size <= maxDocumentBytes else {
            throw GatewayError.queryTooComplex(
                "The document is \(size) bytes; limits.max_document_bytes allows \(maxDocumentBytes).")
        }
        return query
    }

    private func select(in document: AnalysedDocument, for operation: inout Operation) throws(GatewayError) {
        let selected = try document.selectOperation(named: operation.request.operationName)
        operation.selected = selected
        operation.document = document
        operation.record(.operationSelected(kind: selected.kind, name: selected.name, documentSHA256: document.sha256))
    }

    /// Parses and analyses `query`, through `runAnalysis` when there is one.
    private func analyse(_ query: String, for requestID: String) throws(GatewayError) -> AnalysedDocument {
        guard let runAnalysis else { return try cache.analyse(query) }
        return try runAnalysis(requestID) { () throws(GatewayError) in try cache.analyse(query) }
    }
}
