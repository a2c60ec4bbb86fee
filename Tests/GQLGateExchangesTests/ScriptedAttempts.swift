import GQLGateCore
import GQLGatePipeline
import Synchronization

/// A fake `next` that plays a script: each call takes the next step (an
/// answer with a status and headers, a transport failure, or cancellation) and records
/// the operation it was given. The last step repeats when the script runs out.
final class ScriptedAttempts: Sendable {
    enum Step: Sendable {
        case answer(Int, HTTPHeaders = [:])
        case fail(UpstreamFailure.Kind)
        case cancelled
    }

    private let state: Mutex<(steps: [Step], operations: [Operation])>

    init(_ steps: [Step]) {
        state = Mutex((steps, []))
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

/// A clock that only moves when the code under test sleeps; records each sleep.
final class ManualClock: Sendable {
    private let state = Mutex<(now: UInt64, sleeps: [Duration])>((1_000_000_000_000, []))

    var now: UInt64 { state.withLock { $0.now } }
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func advance(by duration: Duration) {
        state.withLock { $0.now += duration.nanoseconds }
    }

    var sleep: @Sendable (Duration) async throws -> Void {
        { duration in
            self.state.withLock {
                $0.sleeps.append(duration)
                $0.now += duration.nanoseconds
            }
        }
    }
}

/// An operation of `kind`, analysed as `DocumentExchange` would.
func analysedOperation(_ kind: OperationKind, headers: HTTPHeaders = [:]) throws -> Operation {
    var op = operation("\(kind.rawValue) { f }", headers: headers)
    op.selected = try DocumentCache().analyse("\(kind.rawValue) { f }").selectOperation(named: nil)
    return op
}
