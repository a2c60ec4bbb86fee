import GQLGatePipeline

/// Notes the selected operation's kind and name (and the document's SHA-256)
/// in its `trace`, for the access log, the request metrics and the request's span. Place it right after
/// `DocumentExchange`; it forwards every operation unchanged.
public struct RequestTraceExchange: OperationStage {
    public init() {}

    package func prepare(_ operation: inout Operation) {
        if let selected = operation.selected {
            operation.trace?.operationSelected(kind: selected.kind, name: selected.name, documentSHA256: operation.document?.sha256)
        }
    }
}
