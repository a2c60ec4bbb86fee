package import GQLGatePipeline

/// GraphQL-over-HTTP's method rules: a mutation over GET is refused with 405
/// and `Allow: POST` (it never runs), a subscription whose client takes a
/// single answer (a plain JSON request) gets 400
/// `SUBSCRIPTION_TRANSPORT_REQUIRED`, and an operation using `@defer` or
/// `@stream` from an HTTP client that takes no `multipart/mixed` answer
/// (`Operation.acceptsIncrementalDelivery`) gets 406 `NOT_ACCEPTABLE`.
/// Place after `DocumentExchange`, before any stage that answers from
/// elsewhere (cache, dedupe) or goes upstream; forwards everything else.
package struct HTTPMethodRulesExchange: InlineExchange {
    package init() {}

    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        switch operation.kind {
        case .mutation where operation.clientTransport == .httpGet:
            throw .methodNotAllowed("Mutations are not allowed over GET; use POST.", allow: "POST")
        case .subscription where !operation.delivery.streams:
            throw .subscriptionTransportRequired
        case _ where operation.defersResults && operation.clientTransport != .webSocket && !operation.acceptsIncrementalDelivery:
            throw .incrementalDeliveryNotAccepted
        default:
            return .passOn
        }
    }
}
