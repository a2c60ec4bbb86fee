public import GQLGateCore

/// One result of an operation: an HTTP-shaped answer whose body is a
/// GraphQL response, with where it came from.
public struct GraphQLResponse: Sendable {
    /// Who produced the answer.
    public enum Source: Sendable, Equatable {
        case upstream
        case cache
        case gateway
    }

    /// HTTP status code.
    public var status: Int
    /// Header fields to send to the client.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: Bytes {
        didSet {
            bodyIsExecutionResult = false
            encodings = nil
        }
    }
    public var source: Source
    /// Where compressed forms of `body` are kept, when it is a stored answer's.
    package var encodings: EncodedBodies?
    /// Whoever made the response has checked that `body` is one JSON object
    /// with `data` or `errors`, so a consumer need not parse it to know
    /// (a subscription event fanned out to many clients is checked once).
    /// False means unknown; any change to `body` sets it back to false.
    package private(set) var bodyIsExecutionResult = false
    /// Set when the answer is incremental (an upstream's `multipart/mixed`
    /// answer to an operation using `@defer` or `@stream`): `body` is its
    /// first result and these are the ones that follow, still to come. Whoever
    /// passes the response on passes them with it; one consumer reads them.
    package var subsequentResults: SubsequentResults?

    public init(status: Int, headers: HTTPHeaders, body: Bytes, source: Source) {
        self.status = status
        self.headers = headers
        self.body = body
        self.source = source
    }

    /// A response whose body its maker checked to be a GraphQL execution
    /// result (see `bodyIsExecutionResult`).
    package static func executionResult(status: Int = 200, headers: HTTPHeaders, body: Bytes, source: Source) -> GraphQLResponse {
        var response = GraphQLResponse(status: status, headers: headers, body: body, source: source)
        response.bodyIsExecutionResult = true
        return response
    }
}
