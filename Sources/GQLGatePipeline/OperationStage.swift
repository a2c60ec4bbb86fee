/// An exchange that only checks or rewrites each operation on its way in and
/// passes it on: it never answers by itself except by throwing, and never
/// looks at the results. `ExchangeChain` runs a row of stages as one step,
/// one plain call each, instead of one async call per stage; used as an
/// `Exchange` anywhere else, a stage behaves the same.
public protocol OperationStage: Exchange {
    /// Checks `operation`, or changes it, before the rest of the pipeline
    /// sees it; throwing answers the operation with the error.
    func prepare(_ operation: inout Operation) throws
}

extension OperationStage {
    public func handle(_ operation: consuming Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        try prepare(&operation)
        return try await next(consume operation)
    }
}
