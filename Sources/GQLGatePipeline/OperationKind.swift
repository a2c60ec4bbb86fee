/// The three kinds of GraphQL operation.
public enum OperationKind: String, Sendable {
    case query
    case mutation
    case subscription
}
