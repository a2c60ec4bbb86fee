extension GraphQLResponse {
    /// Whether `text` is one JSON object with `data` or `errors`: a GraphQL
    /// execution result (see `bodyIsExecutionResult`).
    package static func isExecutionResult(_ text: String) -> Bool {
        guard case .object(let members)? = try? JSONReader.read(text) else { return false }
        return members.contains { $0.key == "data" || $0.key == "errors" }
    }
}
