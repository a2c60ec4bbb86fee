import GQLGateCore

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
    public var body: Bytes
    public var source: Source

    public init(status: Int, headers: HTTPHeaders, body: Bytes, source: Source) {
        self.status = status
        self.headers = headers
        self.body = body
        self.source = source
    }
}
