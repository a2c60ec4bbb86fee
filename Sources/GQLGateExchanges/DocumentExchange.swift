import GQLGateEventLoop
import GQLGatePipeline

/// Parses the operation's document (once per distinct text, through the
/// `DocumentCache`), chooses the operation by `operationName` and records its
/// kind and shape. Answers 400 for a missing query, a document over
/// `maxDocumentBytes` (checked before parsing), a syntax error, a fragment
/// cycle or an unknown operation; forwards everything else. Must come before
/// any exchange that looks at `operation.kind`.
public struct DocumentExchange: OperationStage {
    private let cache: DocumentCache
    private let maxDocumentBytes: Int

    /// - Parameters:
    ///   - cache: the shared document cache.
    ///   - maxDocumentBytes: longest query text accepted (`limits.max_document_bytes`).
    public init(cache: DocumentCache, maxDocumentBytes: Int = 64 * 1024) {
        self.cache = cache
        self.maxDocumentBytes = maxDocumentBytes
    }

    public func prepare(_ operation: inout Operation) throws {
        guard let query = operation.request.query, !query.isEmpty else {
            throw GatewayError.badRequest("The request has no \"query\".")
        }
        let size = query.utf8.count
        guard size <= maxDocumentBytes else {
            throw GatewayError.queryTooComplex(
                "The document is \(size) bytes; limits.max_document_bytes allows \(maxDocumentBytes).")
        }
        let document = try cache.cachedDocument(for: query) ?? analyse(query, for: operation.requestID)
        operation.selected = try document.selectOperation(named: operation.request.operationName)
        operation.document = document
    }

    /// Parses and analyses `query`; on a loop, noted as work for `requestID`
    /// (the loop watchdog names it if the loop stays busy).
    private func analyse(_ query: String, for requestID: String) throws(GatewayError) -> AnalysedDocument {
        guard let loop = EventLoop.current else { return try cache.analyse(query) }
        return try loop.working(for: requestID) { () throws(GatewayError) in try cache.analyse(query) }
    }

    /// `operation` as `prepare` leaves it, when its query text was analysed
    /// already and the operation it names exists; nil for anything else,
    /// which `prepare` decides. Never parses.
    public func analysedFromCache(_ operation: Operation) -> Operation? {
        guard let query = operation.request.query, !query.isEmpty, query.utf8.count <= maxDocumentBytes,
              let document = cache.cachedDocument(for: query),
              let selected = try? document.selectOperation(named: operation.request.operationName)
        else { return nil }
        var operation = operation
        operation.selected = selected
        operation.document = document
        return operation
    }
}
