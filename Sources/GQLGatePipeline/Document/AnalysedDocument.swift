import GraphQL

/// One operation defined in a document.
public struct DocumentOperation: Sendable, Equatable {
    /// The operation's name; nil for an anonymous operation.
    public let name: String?
    public let kind: OperationKind
}

/// A parsed document and what the gateway needs to know about it, computed
/// once per distinct query text (see `DocumentCache`).
///
/// `@unchecked Sendable`: GraphQLSwift's AST nodes are classes whose stored
/// properties are all `let`; edits (`set(value:key:)`) build new nodes, so a
/// parsed tree is never mutated and can be read from any thread.
public final class AnalysedDocument: @unchecked Sendable {
    /// The parsed document.
    public let document: Document
    /// The operations it defines, in order.
    public let operations: [DocumentOperation]
    /// Hex SHA-256 of the query text (the APQ hash).
    public let sha256: String

    init(document: Document, sha256: String) {
        self.document = document
        self.sha256 = sha256
        operations = document.definitions.compactMap { definition in
            guard let operation = definition as? OperationDefinition else { return nil }
            return DocumentOperation(name: operation.name?.value, kind: OperationKind(operation.operation))
        }
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
