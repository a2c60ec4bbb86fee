extension GatewayError {
    /// One error a document or its variables got, and where in the client's text.
    package struct GraphQLProblem: Sendable, Equatable {
        package let message: String
        /// Where in the client's document; empty when there is no place to name.
        package let locations: [DocumentLocation]

        package init(_ message: String, locations: [DocumentLocation] = []) {
            self.message = message
            self.locations = locations
        }
    }

    /// 400 `GRAPHQL_VALIDATION_FAILED`: the document does not validate against the schema; every error, with its locations.
    package static func validationFailed(_ problems: [GraphQLProblem]) -> GatewayError {
        answer(status: 400, code: "GRAPHQL_VALIDATION_FAILED", problems)
    }

    /// 400 `BAD_USER_INPUT`: variables that cannot be coerced to their declared types; every error.
    package static func badUserInput(_ problems: [GraphQLProblem]) -> GatewayError {
        answer(status: 400, code: "BAD_USER_INPUT", problems)
    }

    private static func answer(status: Int, code: String, _ problems: [GraphQLProblem]) -> GatewayError {
        var error = GatewayError(status: status, code: code, message: problems.first?.message ?? code)
        error.isGraphQLRequestError = true
        error.details = problems.map { problem in
            var one = GatewayError(status: status, code: code, message: problem.message)
            one.locations = problem.locations
            return one.graphQLError
        }
        return error
    }
}
