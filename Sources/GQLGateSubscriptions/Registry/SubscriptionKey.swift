package import GQLGatePipeline

/// What makes two subscriptions identical, so they can share one upstream
/// subscription: the document text (normalised by the caller), the
/// operation name, the variables in canonical form (key order irrelevant;
/// absent, null and `{}` alike) and the scope (e.g. the credential set).
package struct SubscriptionKey: Hashable, Sendable {
    /// The normalised document text.
    package let document: String
    /// The operation name, if any.
    package let operationName: String?
    /// The variables as canonical JSON text, "" when there are none.
    package let variables: String
    /// The cache or credential scope the subscription runs in.
    package let scope: String

    package init(document: String, operationName: String?, variables: JSONValue?, scope: String) {
        self.document = document
        self.operationName = operationName
        switch variables {
        case nil, .null?: self.variables = ""
        case .object(let members)? where members.isEmpty: self.variables = ""
        case let value?: self.variables = value.serialized(sortedKeys: true)
        }
        self.scope = scope
    }
}
