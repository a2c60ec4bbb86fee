extension GatewayError {
    /// One error a document or its variables got, and where in the client's text.
    package struct GraphQLProblem: Sendable, Equatable {
        package let message: String
        /// Line and column (1-based) in the client's document; empty when there is no place to name.
        package let locations: [Location]

        package struct Location: Sendable, Equatable {
            package let line: Int
            package let column: Int

            package init(line: Int, column: Int) {
                self.line = line
                self.column = column
            }
        }

        package init(_ message: String, locations: [Location] = []) {
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
        error.details = problems.map { problem in
            var fields: [(key: String, value: JSONValue)] = [("message", .string(problem.message))]
            if !problem.locations.isEmpty {
                fields.append(("locations", .array(problem.locations.map {
                    .object([("line", .integer($0.line)), ("column", .integer($0.column))])
                })))
            }
            fields.append(("extensions", .object([("code", .string(code))])))
            return .object(fields)
        }
        return error
    }
}
