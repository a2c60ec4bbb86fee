/// The pipeline's stages folded around a transport, once, into one function
/// per position: the first stage sees each operation first and the results
/// last. A row of inline exchanges runs inside one step, one plain call
/// each, with no async call of its own.
///
/// The leading inline exchanges (the head) also run on the calling thread
/// (`runAtOnce`): a request answered there (a cache hit, a refused
/// operation) never leaves the server thread, and one that is not goes on
/// from where that run stopped (`resume`), so each stage runs exactly once
/// either way.
package struct ExchangeChain: Sendable {
    /// `steps[i]`: the pipeline from stage `i` on (`steps[count]`: the transport).
    private let steps: [Step]
    /// The leading inline exchanges.
    private let head: [any InlineExchange]
    /// `resumeSteps[i]`: for `i` in the head, stage `i`'s `handle` (its `decide`
    /// said `.onLoop`) and then `steps[i + 1]`; `resumeSteps[head.count]`: `steps[head.count]`.
    private let resumeSteps: [Step]

    /// A step of the chain. Held in a struct, not as a bare closure: an array
    /// keeps a bare closure in its generic form, so every call through it went
    /// through two reabstraction thunks, each an async frame of its own.
    private struct Step: Sendable {
        let run: ExchangeNext
    }

    /// Where the synchronous run stopped: the position the pipeline goes on from.
    package struct Position: Sendable, Equatable {
        package let index: Int

        /// The first stage: the whole pipeline.
        package static let start = Position(index: -1)
    }

    /// What `runAtOnce` came to.
    package enum AtOnce: Sendable {
        /// Answered on the calling thread.
        case answered(GraphQLResponse)
        /// The rest of the pipeline must run on a loop, from this position.
        case goOn(Position)
    }

    /// - Parameters:
    ///   - stages: the stages in the order operations pass them.
    ///   - transport: what the last stage's `next` calls.
    package init(stages: [PipelineStage], transport: some Transport) {
        var steps = [Step](repeating: Step(run: { try await transport.send($0) }), count: stages.count + 1)
        var rowEnd = stages.count  // the first stage after the row of inline exchanges met so far
        for index in stages.indices.reversed() {
            switch stages[index] {
            case .exchange(let exchange):
                let next = steps[index + 1].run
                steps[index] = Step(run: { try await exchange.handle($0, next: next) })
                rowEnd = index
            case .inline:
                steps[index] = Step(run: Self.row(stages[index..<rowEnd], after: Array(steps[(index + 1)...rowEnd])))
            }
        }
        self.steps = steps
        var head: [any InlineExchange] = []
        for stage in stages {
            guard case .inline(let exchange) = stage else { break }
            head.append(exchange)
        }
        self.head = head
        resumeSteps = head.indices.map { index in
            let (exchange, next) = (head[index], steps[index + 1].run)
            return Step(run: { try await exchange.handle($0, next: next) })
        } + [steps[head.count]]
    }

    /// A row of inline exchanges as one step: each decides in turn; one that
    /// needs a loop goes on through its `handle`. `after[i]`: the pipeline
    /// after the row's stage `i` (its last: the first stage after the row).
    private static func row(_ stages: ArraySlice<PipelineStage>, after: [Step]) -> ExchangeNext {
        let row = stages.map { stage -> any InlineExchange in
            guard case .inline(let exchange) = stage else { preconditionFailure("a row holds inline exchanges only") }
            return exchange
        }
        let rest = after[row.count - 1].run
        return { operation in
            var operation = operation
            for index in row.indices {
                switch try row[index].decide(&operation) {
                case .passOn: continue
                case .answer(let answer): return .single(answer)
                case .onLoop: return try await row[index].handle(operation, next: after[index].run)
                }
            }
            return try await rest(operation)
        }
    }

    /// Runs `operation` through the pipeline.
    package func run(_ operation: Operation) async throws -> ResultStream {
        try await steps[0].run(operation)
    }

    /// Runs the head on the calling thread: the answer when a stage there
    /// gives one, else where the pipeline goes on (`resume`), with
    /// `operation` as the stages before it left it. Throws what a stage
    /// throws (the operation's answer).
    package func runAtOnce(_ operation: inout Operation) throws -> AtOnce {
        for index in head.indices {
            switch try head[index].decide(&operation) {
            case .passOn: continue
            case .answer(let answer): return .answered(answer)
            case .onLoop: return .goOn(Position(index: index))
            }
        }
        return .goOn(Position(index: head.count))
    }

    /// Runs the pipeline from `position` (given by `runAtOnce`, or `.start`) on.
    package func resume(_ operation: Operation, at position: Position) async throws -> ResultStream {
        position.index < 0 ? try await steps[0].run(operation) : try await resumeSteps[position.index].run(operation)
    }
}
