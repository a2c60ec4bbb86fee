import GQLGatePipeline

extension GatewayError {
    /// The error as one GraphQL error object: `{"message": ..., "extensions": {"code": ...}}`.
    var graphQLError: JSONValue {
        .object([("message", .string(message)), ("extensions", .object([("code", .string(code))]))])
    }
}
