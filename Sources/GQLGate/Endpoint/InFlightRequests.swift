@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPServer

/// The requests taken from the server (suspended) and not yet answered, each
/// with the task preparing its answer. Every request is answered exactly once:
/// by its task, or, when a drain is cut short, by `closeAll(answering:)`,
/// which also cancels the task. After `closeAll`, new requests are answered
/// at once the same way, so none stays suspended while the server stops.
final class InFlightRequests: Sendable {
    /// Makes the answer for a request the drain cuts short.
    typealias ClosingAnswer = @Sendable (ServerRequest) -> ServerResponse

    private struct Entry {
        let request: ServerRequest
        let task: Task<Void, Never>
    }

    private struct State {
        var open = SlotTable<Entry>()
        var closingAnswer: ClosingAnswer?
    }

    private let state = Lock(State())
    /// Signalled when the last open request is answered.
    private let emptied = ChangeSignal()

    /// Requests not yet answered.
    var count: Int {
        state.withLock { $0.open.count }
    }

    /// Whether `closeAll` was called: every request is answered its way from now on.
    var isClosed: Bool {
        state.withLock { $0.closingAnswer != nil }
    }

    /// Waits until every request taken is answered (true) or `deadline`
    /// (monotonic nanoseconds, `GatewayClock`) comes (false).
    func waitUntilEmpty(before deadline: UInt64) -> Bool {
        emptied.wait(until: { count == 0 }, deadline: deadline)
    }

    /// Runs `work` as a task preferring `loop` and answers `request` with its result.
    func start(_ request: ServerRequest, on loop: EventLoop, _ work: @escaping @Sendable () async -> ServerResponse) {
        // The task is made under the lock with its entry, so `closeAll` sees
        // every admitted request with its task (and a task that ends at once
        // waits for its entry to exist). One lock and one table update a request.
        let closingAnswer = state.withLock { state -> ClosingAnswer? in
            if let closingAnswer = state.closingAnswer { return closingAnswer }
            state.open.insert { key in
                let task = Task(executorPreference: loop) {
                    let response = await work()
                    self.finish(key, with: response)
                }
                return Entry(request: request, task: task)
            }
            return nil
        }
        if let closingAnswer {
            request.respond(closingAnswer(request))
        }
    }

    /// Answers every open request with `answer(request)`, cancels their tasks,
    /// and answers later requests the same way at once. Returns how many were open.
    @discardableResult
    func closeAll(answering answer: @escaping ClosingAnswer) -> Int {
        let open = state.withLock { state -> [Entry] in
            state.closingAnswer = answer
            return state.open.removeAll()
        }
        for entry in open {
            entry.task.cancel()  // first: the task sees it is cancelled and leaves the answer (and its record) to this one
            entry.request.respond(answer(entry.request))
        }
        if !open.isEmpty { emptied.signal() }
        return open.count
    }

    private func finish(_ key: SlotTable<Entry>.Key, with response: ServerResponse) {
        let (entry, empty) = state.withLock { state in
            let entry = state.open.remove(key)
            return (entry, entry != nil && state.open.count == 0)
        }
        guard let entry else { return }
        entry.request.respond(response)
        if empty { emptied.signal() }
    }
}
