@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// A fake `next` that plays a script: each call takes the next step (an
/// answer with a status and headers, a transport failure, or cancellation) and records
/// the operation it was given. The last step repeats when the script runs out.
final class ScriptedAttempts: Sendable {
    enum Step: Sendable {
        case answer(Int, HTTPHeaders = [:])
        case fail(UpstreamFailure.Kind)
        case cancelled
    }

    private let state: Lock<(steps: [Step], operations: [Operation])>

    init(_ steps: [Step]) {
        state = Lock((steps, []))
    }

    var calls: Int { state.withLock { $0.operations.count } }
    var operations: [Operation] { state.withLock { $0.operations } }

    var next: ExchangeNext {
        { operation in
            let step = self.state.withLock { state -> Step in
                state.operations.append(operation)
                return state.steps.count > 1 ? state.steps.removeFirst() : state.steps[0]
            }
            switch step {
            case .answer(let status, let headers):
                return .single(GraphQLResponse(status: status, headers: headers, body: Bytes("answer \(status)"), source: .upstream))
            case .fail(let kind):
                throw UpstreamFailure(kind: kind, message: "scripted \(kind)")
            case .cancelled:
                throw CancellationError()
            }
        }
    }
}

/// Time for tests: it moves when the test advances it or the code under test
/// sleeps (each sleep recorded, none waited for).
final class SleepingClock: Sendable {
    private let manual = ManualClock()
    private let recorded = Lock<[Duration]>([])

    /// What the code under test reads.
    var clock: GatewayClock { manual.clock }
    /// The monotonic reading now.
    var now: UInt64 { manual.monotonicNanoseconds }
    /// Every sleep, in order.
    var sleeps: [Duration] { recorded.withLock { $0 } }

    func advance(by duration: Duration) {
        manual.advance(by: duration)
    }

    /// Records the sleep and moves the clock past it, at once.
    var sleep: @Sendable (Duration) async throws -> Void {
        { duration in
            self.recorded.withLock { $0.append(duration) }
            self.manual.advance(by: duration)
        }
    }
}

/// An operation of `kind`, analysed as `DocumentExchange` would.
func analysedOperation(_ kind: OperationKind, headers: HTTPHeaders = [:]) throws -> Operation {
    var op = operation("\(kind.rawValue) { f }", headers: headers)
    op.selected = try DocumentCache().analyse("\(kind.rawValue) { f }").selectOperation(named: nil)
    return op
}
