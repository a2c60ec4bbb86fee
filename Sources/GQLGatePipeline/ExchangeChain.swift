/// Exchanges folded around a transport, once, into one function: the first
/// exchange sees each operation first and the results last. Each row of
/// `OperationStage`s runs inside the step of the exchange (or transport) right
/// after it, so stages add no async call of their own.
public struct ExchangeChain: Sendable {
    private let entry: ExchangeNext

    /// - Parameters:
    ///   - exchanges: the stages in the order operations pass them.
    ///   - transport: what the last stage's `next` calls.
    public init(exchanges: [any Exchange], transport: some Transport) {
        // Built from the end: `step(stages)` is the step that follows the row
        // of stages met so far, with them run first.
        var step: ([any OperationStage]) -> ExchangeNext = { stages in Self.sending(to: transport, after: stages) }
        var stages: [any OperationStage] = []  // the row of stages right before `step`, in order
        for exchange in exchanges.reversed() {
            if let stage = exchange as? any OperationStage {
                stages.insert(stage, at: 0)
                continue
            }
            let rest = step(stages)
            stages = []
            step = { stages in Self.handling(by: exchange, next: rest, after: stages) }
        }
        entry = step(stages)
    }

    /// `transport.send`, with `stages` run first, in order.
    private static func sending(to transport: some Transport, after stages: [any OperationStage]) -> ExchangeNext {
        guard !stages.isEmpty else { return { try await transport.send($0) } }
        return { (operation: consuming Operation) in
            for stage in stages { try stage.prepare(&operation) }
            return try await transport.send(operation)
        }
    }

    /// `exchange.handle` with `next`, with `stages` run first, in order.
    private static func handling(by exchange: any Exchange, next: @escaping ExchangeNext, after stages: [any OperationStage]) -> ExchangeNext {
        guard !stages.isEmpty else { return { try await exchange.handle($0, next: next) } }
        return { (operation: consuming Operation) in
            for stage in stages { try stage.prepare(&operation) }
            return try await exchange.handle(consume operation, next: next)
        }
    }

    /// Runs `operation` through the pipeline.
    public func run(_ operation: consuming Operation) async throws -> ResultStream {
        try await entry(consume operation)
    }
}
