import GQLGateCore

/// GraphQL incremental delivery over HTTP (`@defer`, `@stream`): an answer
/// whose results come as the parts of one `multipart/mixed` body
/// (graphql-over-http's Incremental Delivery RFC, Apollo's `deferSpec=20220824`).
package enum IncrementalDelivery {
    /// Whether an `Accept` header admits an incremental answer: a
    /// `multipart/mixed` range with a weight above 0, with any parameters
    /// (Apollo clients send `deferSpec=20220824`) but `subscriptionSpec`
    /// (Apollo's multipart subscriptions, another protocol). Wildcards
    /// (`*/*`, `multipart/*`) do not count: they are what clients that read
    /// no multipart body send (curl, browsers' fetch).
    package static func isAccepted(by accept: String?) -> Bool {
        // Most requests ask for JSON: a byte scan skips the parse for them.
        guard let accept, accept.containsIgnoringASCIICase("multipart") else { return false }
        return AcceptHeader(accept).names("multipart", "mixed") { $0.parameter("subscriptionspec") == nil }
    }
}
