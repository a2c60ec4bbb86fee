/// What an `InlineExchange` decided about an operation, without waiting.
public enum InlineDecision: Sendable {
    /// The operation goes on, as `decide` left it, to the next stage.
    case passOn
    /// This is the operation's answer; no later stage sees the operation.
    case answer(GraphQLResponse)
    /// The stage cannot decide without waiting, or without work too heavy for
    /// the thread that received the request (parsing a document not seen
    /// before, a cache miss): the pipeline calls the stage's `handle` on a loop.
    case onLoop
}

/// A stage that decides each operation at once: it checks or rewrites the
/// operation, or answers it from what it holds, without waiting. This is
/// the one thing that decides where a stage runs:
///
/// - The pipeline's leading inline exchanges run on the thread that received
///   the request, one plain call each. An operation they answer (a cache
///   hit, a refused operation) never leaves that thread; the rest of the
///   pipeline goes on from where they stopped, on a loop. Each stage runs
///   once either way.
/// - Past the first plain `Exchange` (a user stage placed before `.cache`,
///   say) every stage runs on a loop; an inline exchange there is still one
///   plain call, not an async step of its own.
///
/// `decide` may throw: the error is the operation's answer (a
/// `GatewayError`, or anything `GatewayErrorConvertible`). A stage whose
/// `decide` can say `.onLoop` implements `handle` too, for the loop, and
/// the pipeline calls that `handle` right after `decide` said so; every
/// other inline exchange gets its `handle` from `decide`.
public protocol InlineExchange: Exchange {
    /// Checks `operation`, changes it, or answers it, without waiting.
    func decide(_ operation: inout Operation) throws -> InlineDecision
}

extension InlineExchange {
    /// `decide`, as an exchange: for a stage that never says `.onLoop`.
    public func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        var operation = operation
        switch try decide(&operation) {
        case .passOn: return try await next(operation)
        case .answer(let answer): return .single(answer)
        case .onLoop: preconditionFailure("\(Self.self).decide said .onLoop; such a stage implements handle(_:next:) itself")
        }
    }
}
