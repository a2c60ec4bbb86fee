import GQLGateCore
package import GQLGatePipeline

/// `metrics.field_usage`: states the schema coordinates each operation
/// selects (`OperationFact.fieldsSelected`), for
/// `gqlgate_field_usage_total{coordinate, client_name}`, with the client
/// named by `metrics.client_name_header`. The coordinates are read once per
/// document and schema; a request states the list it was read into. Runs
/// after the stages that refuse operations, so only operations that run
/// (or are answered from the cache) count; without a schema loaded nothing counts.
package struct FieldUsageExchange: InlineExchange {
    private let schema: GatewaySchema
    /// `metrics.client_name_header`, lower case.
    private let clientNameHeader: String

    package init(schema: GatewaySchema, clientNameHeader: String) {
        self.schema = schema
        self.clientNameHeader = clientNameHeader
    }

    /// Counts at once when the document's coordinates are known; on a loop when they must be read.
    package func decide(_ operation: inout Operation) -> InlineDecision {
        guard let loaded = schema.current, let document = operation.document, let selected = operation.selected else { return .passOn }
        guard let selections = loaded.knownSelections(in: document) else { return .onLoop }
        state(selections, of: selected, in: document, operation: operation)
        return .passOn
    }

    package func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        if let loaded = schema.current, let document = operation.document, let selected = operation.selected {
            state(loaded.selections(in: document), of: selected, in: document, operation: operation)
        }
        return try await next(operation)
    }

    private func state(_ selections: PerOperation<SelectedFields>, of selected: DocumentOperation, in document: AnalysedDocument,
                       operation: borrowing Operation) {
        guard let fields = selections.value(of: selected, in: document), !fields.coordinates.isEmpty else { return }
        operation.record(.fieldsSelected(fields, clientName: operation.headers[clientNameHeader]))
    }
}
