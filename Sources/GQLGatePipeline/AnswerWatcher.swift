/// A built-in exchange that watches how each operation is answered without
/// changing anything (the request metrics and the access line). Whichever
/// way an operation is answered, it sees the outcome once: `ExchangeChain`
/// tells it about answers its synchronous head gives on the calling thread
/// (`answeredAtOnce`), and runs the rest of a resumed pipeline inside
/// `watch`, as `handle` does for a whole run.
package protocol AnswerWatcher: Exchange {
    /// Runs `rest` (the pipeline after the watcher) with `operation` and
    /// watches what comes of it.
    func watch(_ operation: consuming Operation, _ rest: (consuming Operation) async throws -> ResultStream) async throws
        -> ResultStream

    /// The chain's synchronous head answered `operation` on the calling
    /// thread, with `outcome` (an answer, or the error a stage threw).
    func answeredAtOnce(_ operation: borrowing Operation, _ outcome: Result<GraphQLResponse, any Error>)
}

extension AnswerWatcher {
    public func handle(_ operation: consuming Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        try await watch(operation, next)
    }
}
