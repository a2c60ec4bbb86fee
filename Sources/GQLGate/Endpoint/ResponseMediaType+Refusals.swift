import GQLGateHTTPServer
import GQLGatePipeline

extension ResponseMediaType {
    /// The media type of an answer gqlgate makes before (or instead of)
    /// running a request: the one its `Accept` asks for, or
    /// `application/graphql-response+json` when it admits neither (the 406
    /// itself, a 404 for a browser's page request).
    static func refusing(_ request: ServerRequest) -> ResponseMediaType {
        negotiated(byAccept: request.headers["accept"]) ?? .graphQLResponse
    }
}
