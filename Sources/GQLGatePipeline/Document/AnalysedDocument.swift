import GraphQL

/// One operation defined in a document.
public struct DocumentOperation: Sendable, Equatable {
    /// The operation's name; nil for an anonymous operation.
    public let name: String?
    public let kind: OperationKind
    /// Its depth and alias count with fragments expanded.
    public let shape: OperationShape
}

/// A parsed document and what the gateway needs to know about it, computed
/// once per distinct query text (see `DocumentCache`).
///
/// `@unchecked Sendable`: GraphQLSwift's AST is not marked `Sendable`, but the
/// gateway never edits a tree once parsed (no `set(value:key:)` on a cached
/// document; rewrites build new trees), so it is read-only and can be read
/// from any thread.
public final class AnalysedDocument: @unchecked Sendable {
    /// The parsed document.
    public let document: Document
    /// The operations it defines, in order.
    public let operations: [DocumentOperation]
    /// Hex SHA-256 of the query text (the APQ hash).
    public let sha256: String

    /// Analyses `document`; throws `QUERY_TOO_COMPLEX` when its fragments spread each other in a cycle.
    init(document: Document, sha256: String) throws(GatewayError) {
        self.document = document
        self.sha256 = sha256
        var measurer = OperationShapeMeasurer(document: document)
        var operations: [DocumentOperation] = []
        for case let operation as OperationDefinition in document.definitions {
            operations.append(DocumentOperation(
                name: operation.name?.value, kind: OperationKind(operation.operation),
                shape: try measurer.shape(of: operation.selectionSet)))
        }
        self.operations = operations
    }

    /// Chooses the operation to run, as GraphQL's GetOperation does.
    public func selectOperation(named name: String?) throws(GatewayError) -> DocumentOperation {
        if let name {
            guard let found = operations.first(where: { $0.name == name }) else {
                throw .badRequest("Unknown operation named \"\(name)\".")
            }
            return found
        }
        switch operations.count {
        case 1: return operations[0]
        case 0: throw .badRequest("The document has no operation to run.")
        default: throw .badRequest("The document has several operations: operationName must say which to run.")
        }
    }
}

extension OperationKind {
    init(_ type: OperationType) {
        switch type {
        case .query: self = .query
        case .mutation: self = .mutation
        case .subscription: self = .subscription
        }
    }
}
