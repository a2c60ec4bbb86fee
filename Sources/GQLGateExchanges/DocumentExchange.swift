import GQLGatePipeline

/// Parses the operation's document (once per distinct text, through the
/// `DocumentCache`), chooses the operation by `operationName` and records its
/// kind. Answers 400 for a missing query, a syntax error or an unknown
/// operation; forwards everything else. Must come before any exchange that
/// looks at `operation.kind`.
public struct DocumentExchange: Exchange {
    private let cache: DocumentCache

    public init(cache: DocumentCache) {
        self.cache = cache
    }

    public func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        guard let query = operation.request.query, !query.isEmpty else {
            throw GatewayError.badRequest("The request has no \"query\".")
        }
        var operation = operation
        let document = try cache.analyse(query)
        operation.selected = try document.selectOperation(named: operation.request.operationName)
        operation.document = document
        return try await next(operation)
    }
}
