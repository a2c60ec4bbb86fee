package import GQLGatePipeline

/// GraphQL-over-HTTP's method rules: a mutation over GET is refused with 405
/// and `Allow: POST` (it never runs), and a subscription whose client takes a
/// single answer (a plain JSON request) gets 400
/// `SUBSCRIPTION_TRANSPORT_REQUIRED`. Place after `DocumentExchange`;
/// forwards everything else.
package struct HTTPMethodRulesExchange: InlineExchange {
    package init() {}

    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        switch operation.kind {
        case .mutation where operation.clientTransport == .httpGet:
            throw .methodNotAllowed("Mutations are not allowed over GET; use POST.", allow: "POST")
        case .subscription where !operation.delivery.streams:
            throw .subscriptionTransportRequired
        default:
            return .passOn
        }
    }
}
