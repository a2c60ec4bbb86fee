/// Exchanges folded around a transport, once, into one function: the first
/// exchange sees each operation first and the results last. Consecutive
/// `OperationStage`s are folded into one step that calls them in order.
public struct ExchangeChain: Sendable {
    private let entry: ExchangeNext

    /// - Parameters:
    ///   - exchanges: the stages in the order operations pass them.
    ///   - transport: what the last stage's `next` calls.
    public init(exchanges: [any Exchange], transport: any Transport) {
        var next: ExchangeNext = { try await transport.send($0) }
        var stages: [any OperationStage] = []  // the row of stages right before `next`, in order
        for exchange in exchanges.reversed() {
            if let stage = exchange as? any OperationStage {
                stages.insert(stage, at: 0)
                continue
            }
            let rest = Self.folding(stages, before: next)
            stages = []
            next = { (operation: consuming Operation) in try await exchange.handle(consume operation, next: rest) }
        }
        entry = Self.folding(stages, before: next)
    }

    /// `next` with `stages` run first, in order, in one step.
    private static func folding(_ stages: [any OperationStage], before next: @escaping ExchangeNext) -> ExchangeNext {
        guard !stages.isEmpty else { return next }
        return { (operation: consuming Operation) in
            for stage in stages { try stage.prepare(&operation) }
            return try await next(consume operation)
        }
    }

    /// Runs `operation` through the pipeline.
    public func run(_ operation: consuming Operation) async throws -> ResultStream {
        try await entry(consume operation)
    }
}
