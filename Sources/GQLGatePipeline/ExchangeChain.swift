/// Exchanges folded around a transport, once, into one function: the first
/// exchange sees each operation first and the results last.
public struct ExchangeChain: Sendable {
    private let entry: ExchangeNext

    /// - Parameters:
    ///   - exchanges: the stages in the order operations pass them.
    ///   - transport: what the last stage's `next` calls.
    public init(exchanges: [any Exchange], transport: any Transport) {
        var next: ExchangeNext = { try await transport.send($0) }
        for exchange in exchanges.reversed() {
            let rest = next
            next = { try await exchange.handle($0, next: rest) }
        }
        entry = next
    }

    /// Runs `operation` through the pipeline.
    public func run(_ operation: Operation) async throws -> ResultStream {
        try await entry(operation)
    }
}
