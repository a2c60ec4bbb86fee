/// A built-in stage that only checks or rewrites each operation on its way
/// in and passes it on: it never answers by itself except by throwing, and
/// never looks at the results. `ExchangeChain` runs a row of stages as one
/// step, one plain call each, instead of one async call per stage, and runs
/// the leading ones on the thread that received the request
/// (`ExchangeChain.runAtOnce`).
package protocol OperationStage: Exchange {
    /// Checks `operation`, or changes it, before the rest of the pipeline
    /// sees it; throwing answers the operation with the error.
    func prepare(_ operation: inout Operation) throws

    /// `prepare` on a thread that must not be kept waiting (a server
    /// thread): false, with `operation` untouched, when the work is not
    /// cheap there (parsing a document not seen before), so the chain goes
    /// on from this stage on a loop. By default `prepare`, then true.
    func prepareAtOnce(_ operation: inout Operation) throws -> Bool
}

extension OperationStage {
    package func prepareAtOnce(_ operation: inout Operation) throws -> Bool {
        try prepare(&operation)
        return true
    }

    public func handle(_ operation: consuming Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        try prepare(&operation)
        return try await next(consume operation)
    }
}

/// A built-in exchange that can sometimes answer at once, without waiting
/// (the cache, from memory): `ExchangeChain.runAtOnce` asks it, and when it
/// has no answer at once the chain goes on from it on a loop, through
/// `handle`.
package protocol AnswersAtOnce: Exchange {
    /// The answer to `operation`, when one is ready without waiting; nil when
    /// `handle` must decide.
    func answerAtOnce(_ operation: Operation) -> GraphQLResponse?
}
