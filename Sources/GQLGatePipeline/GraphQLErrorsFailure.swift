/// A stream of results that ended with GraphQL errors instead of `complete`
/// (an upstream subscription's `error` message): each client protocol sends
/// them in its own form (`error` message, `event: next` with `errors`, a
/// multipart part with `errors`).
package struct GraphQLErrorsFailure: Error, Sendable, Equatable {
    /// The GraphQL errors, each a JSON object with at least `message`.
    package var errors: [JSONValue]

    package init(errors: [JSONValue]) {
        self.errors = errors
    }
}
