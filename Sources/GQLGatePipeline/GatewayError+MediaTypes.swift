extension GatewayError {
    /// 406 `NOT_ACCEPTABLE`: the client's `Accept` admits no media type the answer could be sent in.
    package static func notAcceptable(_ message: String) -> GatewayError {
        GatewayError(status: 406, code: "NOT_ACCEPTABLE", message: message)
    }

    /// The refusal of an `Accept` that admits neither GraphQL media type nor a stream.
    package static let noAcceptableMediaType = notAcceptable(
        "Accept admits no media type gqlgate answers in: send application/graphql-response+json or application/json "
            + "(text/event-stream or multipart/mixed for a stream).")
}
