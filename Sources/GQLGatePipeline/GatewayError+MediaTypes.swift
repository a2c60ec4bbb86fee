extension GatewayError {
    /// 406 `NOT_ACCEPTABLE`: the client's `Accept` admits no media type the answer could be sent in.
    package static func notAcceptable(_ message: String) -> GatewayError {
        GatewayError(status: 406, code: "NOT_ACCEPTABLE", message: message)
    }

    /// The refusal of an `Accept` that admits neither GraphQL media type nor a stream.
    package static let noAcceptableMediaType = notAcceptable(
        "Accept admits no media type gqlgate answers in: send application/graphql-response+json or application/json "
            + "(text/event-stream or multipart/mixed for a stream).")

    /// The refusal of an operation using `@defer` or `@stream`, whose answer
    /// comes in `multipart/mixed` parts, from a client whose `Accept` does not
    /// admit them. Refused before anything goes upstream.
    package static let incrementalDeliveryNotAccepted = notAcceptable(
        "The operation uses @defer or @stream, whose answer comes in parts as multipart/mixed, which the request's Accept "
            + "does not admit: send Accept: multipart/mixed (Apollo clients: multipart/mixed;deferSpec=20220824), "
            + "or leave the directives out.")
}
