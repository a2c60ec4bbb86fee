import GQLGateCore
import GQLGatePipeline
import GQLGateSubscriptions

/// Turns an operation's outcome into the event a client protocol machine takes.
enum WebSocketResult {
    /// A result: its body when it is a GraphQL response (an object with
    /// `data` or `errors`; parsed to find out unless the response says so),
    /// else a failure saying what the upstream answered.
    static func event(for response: GraphQLResponse, id: String) -> ClientConnectionEvent {
        if response.bodyIsExecutionResult || GraphQLResponse.isExecutionResult(response.body.string) {
            return .result(id: id, payload: SerializedJSON(trusted: response.body))
        }
        let error = GatewayError.upstreamUnavailable("The upstream answered \(response.status) without a GraphQL response.")
        return .failed(id: id, errors: error.graphQLErrors)
    }

    /// A failure: the GraphQL errors of a stream that ended with them, the
    /// gateway error otherwise.
    static func event(for error: any Error, id: String) -> ClientConnectionEvent {
        switch error {
        case let failure as GraphQLErrorsFailure:
            return .failed(id: id, errors: failure.errors)
        case let convertible as any GatewayErrorConvertible:
            return .failed(id: id, errors: convertible.gatewayError.graphQLErrors)
        default:
            return .failed(id: id, errors: GatewayError.internalError("The gateway failed: \(error)").graphQLErrors)
        }
    }
}
