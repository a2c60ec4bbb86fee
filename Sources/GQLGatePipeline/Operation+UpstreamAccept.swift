import GQLGateCore

extension Operation {
    /// What the upstream is asked for when gqlgate chooses: either GraphQL
    /// media type, the spec's preferred (GraphQL over HTTP's recommended `Accept`).
    package static let gatewayAccept = "application/graphql-response+json, application/json;q=0.9"

    /// The `Accept` the upstream is sent: the client's own when it goes
    /// upstream as it is (`forwardedAccept`), else `gatewayAccept`.
    package var upstreamAccept: String { forwardedAccept ?? Self.gatewayAccept }

    /// The client's `Accept` when it goes upstream as it is: on a single
    /// answer, when it names `multipart/mixed` (incremental delivery, which
    /// the upstream produces and gqlgate passes on). Otherwise nil: gqlgate
    /// answers the client in the media type it negotiated, translating the
    /// upstream's answer (`GraphQLResponse.delivered(as:)`), so the upstream
    /// need not see the client's `Accept`, and clients that send different
    /// ones can share an answer (the cache and dedupe keys leave it out).
    package var forwardedAccept: String? {
        guard delivery == .single, let accept = headers["accept"], accept.containsIgnoringASCIICase("multipart"),
              AcceptHeader(accept).names("multipart", "mixed")
        else { return nil }
        return accept
    }
}
