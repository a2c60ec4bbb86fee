import GQLGatePipeline

/// Notes the selected operation's kind and name in its `trace`,
/// for the access log and the request metrics. Place it right after
/// `DocumentExchange`; it forwards every operation unchanged.
public struct RequestTraceExchange: OperationStage {
    public init() {}

    package func prepare(_ operation: inout Operation) {
        if let selected = operation.selected {
            operation.trace?.operationSelected(kind: selected.kind, name: selected.name)
        }
    }
}
