/// Exchanges folded around a transport, once, into one function per position:
/// the first exchange sees each operation first and the results last. Each
/// row of `OperationStage`s runs inside the step of the exchange (or
/// transport) right after it, so stages add no async call of their own.
///
/// The chain's synchronous head — the stages and the exchanges that can
/// answer at once, up to the first exchange that cannot — also runs on the
/// calling thread (`runAtOnce`): a request answered there (a cache hit, a
/// refused operation) never leaves the server thread, and one that is not
/// goes on from where that run stopped (`resume`), so each stage runs
/// exactly once either way. `AnswerWatcher`s in the head see both ways:
/// told of an answer given at once, wrapped around a resumed run.
public struct ExchangeChain: Sendable {
    /// `steps[i]`: the pipeline from exchange `i` on (`steps[count]`: the transport).
    private let steps: [ExchangeNext]
    /// The synchronous head, in order, as indices into `stages` and `answering`
    /// (plain values: reading one copies no existential).
    private let head: [HeadStep]
    private let stages: [any OperationStage]
    private let answering: [any AnswersAtOnce]
    /// The watchers in the head, by position.
    private let watchers: [(index: Int, watcher: any AnswerWatcher)]
    /// `resumeSteps[i]`: `steps[i]` run inside the head's watchers before position `i`.
    private let resumeSteps: [ExchangeNext]

    private enum HeadStep: Sendable {
        case stage(Int)
        case answering(Int)
        case watching
    }

    /// Where the synchronous run stopped: the position the pipeline goes on from.
    package struct Position: Sendable, Equatable {
        package let index: Int

        /// The first exchange: the whole pipeline.
        package static let start = Position(index: 0)
    }

    /// What `runAtOnce` came to.
    package enum AtOnce: Sendable {
        /// Answered on the calling thread.
        case answered(GraphQLResponse)
        /// The rest of the pipeline must run on a loop, from this position.
        case goOn(Position)
    }

    /// - Parameters:
    ///   - exchanges: the stages in the order operations pass them.
    ///   - transport: what the last stage's `next` calls.
    public init(exchanges: [any Exchange], transport: some Transport) {
        var steps = [ExchangeNext](repeating: { try await transport.send($0) }, count: exchanges.count + 1)
        // Built from the end: `handler` is the step of the first exchange after the row of stages met so far.
        var handler: ExchangeNext = steps[exchanges.count]
        var row: [any OperationStage] = []
        for index in exchanges.indices.reversed() {
            let exchange = exchanges[index]
            if let stage = exchange as? any OperationStage {
                row.insert(stage, at: 0)
            } else {
                handler = Self.handling(by: exchange, next: steps[index + 1])
                row = []
            }
            steps[index] = Self.running(row, before: handler)
        }
        self.steps = steps
        var head: [HeadStep] = []
        var stages: [any OperationStage] = []
        var answering: [any AnswersAtOnce] = []
        var watchers: [(index: Int, watcher: any AnswerWatcher)] = []
        for exchange in exchanges {
            if let stage = exchange as? any OperationStage {
                head.append(.stage(stages.count))
                stages.append(stage)
            } else if let exchange = exchange as? any AnswersAtOnce {
                head.append(.answering(answering.count))
                answering.append(exchange)
            } else if let watcher = exchange as? any AnswerWatcher {
                watchers.append((head.count, watcher))
                head.append(.watching)
            } else {
                break
            }
        }
        self.head = head
        self.stages = stages
        self.answering = answering
        self.watchers = watchers
        resumeSteps = (0...head.count).map { position in
            var step = steps[position]
            for (index, watcher) in watchers.reversed() where index < position {
                let inner = step
                step = { try await watcher.watch($0, inner) }
            }
            return step
        }
    }

    private static func handling(by exchange: any Exchange, next: @escaping ExchangeNext) -> ExchangeNext {
        { try await exchange.handle($0, next: next) }
    }

    /// `handler`, with `stages` run first, in order.
    private static func running(_ stages: [any OperationStage], before handler: @escaping ExchangeNext) -> ExchangeNext {
        guard !stages.isEmpty else { return handler }
        return { (operation: consuming Operation) in
            for stage in stages { try stage.prepare(&operation) }
            return try await handler(consume operation)
        }
    }

    /// Runs `operation` through the pipeline.
    public func run(_ operation: consuming Operation) async throws -> ResultStream {
        try await steps[0](consume operation)
    }

    /// Runs the synchronous head on the calling thread: the answer when a
    /// stage there gives one, else where the pipeline goes on (`resume`),
    /// with `operation` as the stages before it left it. Throws what a
    /// stage throws (the operation's answer).
    package func runAtOnce(_ operation: inout Operation) throws -> AtOnce {
        var index = 0
        do {
            while index < head.count {
                switch head[index] {
                case .stage(let stage):
                    guard try stages[stage].prepareAtOnce(&operation) else { return .goOn(Position(index: index)) }
                case .answering(let exchange):
                    guard let answer = answering[exchange].answerAtOnce(operation) else { return .goOn(Position(index: index)) }
                    tellWatchers(before: index, operation, .success(answer))
                    return .answered(answer)
                case .watching:
                    break
                }
                index += 1
            }
        } catch {
            tellWatchers(before: index, operation, .failure(error))
            throw error
        }
        return .goOn(Position(index: head.count))
    }

    /// Tells the watchers before `index` in the head, innermost first, how `operation` was answered.
    private func tellWatchers(before index: Int, _ operation: borrowing Operation, _ outcome: Result<GraphQLResponse, any Error>) {
        for (watcherIndex, watcher) in watchers.reversed() where watcherIndex < index {
            watcher.answeredAtOnce(operation, outcome)
        }
    }

    /// Runs the pipeline from `position` (given by `runAtOnce`) on, inside
    /// the watchers the head passed.
    package func resume(_ operation: consuming Operation, at position: Position) async throws -> ResultStream {
        // The usual case, one watcher (the request log) passed: called here, without the wrapping closure's async frame.
        if watchers.count == 1, watchers[0].index < position.index {
            return try await watchers[0].watcher.watch(operation, steps[position.index])
        }
        return try await resumeSteps[position.index](operation)
    }
}
