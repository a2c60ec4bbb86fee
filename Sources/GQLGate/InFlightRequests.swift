import GQLGateEventLoop
import GQLGateHTTPServer
import Synchronization

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
        let answered: @Sendable (ServerResponse) -> Void
        var task: Task<Void, Never>?
    }

    private struct State {
        var nextID: UInt64 = 0
        var open: [UInt64: Entry] = [:]
        var closingAnswer: ClosingAnswer?
    }

    private let state = Mutex(State())

    /// Requests not yet answered.
    var count: Int {
        state.withLock { $0.open.count }
    }

    /// Whether `closeAll` was called: every request is answered its way from now on.
    var isClosed: Bool {
        state.withLock { $0.closingAnswer != nil }
    }

    /// Runs `work` as a task preferring `loop` and answers `request` with its
    /// result; then calls `answered` with whatever answer was sent.
    func start(
        _ request: ServerRequest, on loop: EventLoop, _ work: @escaping @Sendable () async -> ServerResponse,
        answered: @escaping @Sendable (ServerResponse) -> Void = { _ in }
    ) {
        let admission = state.withLock { state -> Admission in
            if let closingAnswer = state.closingAnswer { return .closed(closingAnswer) }
            state.nextID &+= 1
            state.open[state.nextID] = Entry(request: request, answered: answered)
            return .admitted(state.nextID)
        }
        let id: UInt64
        switch admission {
        case .admitted(let admittedID):
            id = admittedID
        case .closed(let answer):
            let response = answer(request)
            request.respond(response)
            answered(response)
            return
        }
        let task = Task(executorPreference: loop) {
            let response = await work()
            self.finish(id, with: response)
        }
        let closed = state.withLock { state -> Bool in
            state.open[id]?.task = task
            return state.closingAnswer != nil
        }
        if closed { task.cancel() }
    }

    /// Answers every open request with `answer(request)`, cancels their tasks,
    /// and answers later requests the same way at once. Returns how many were open.
    @discardableResult
    func closeAll(answering answer: @escaping ClosingAnswer) -> Int {
        let open = state.withLock { state -> [Entry] in
            state.closingAnswer = answer
            defer { state.open.removeAll() }
            return Array(state.open.values)
        }
        for entry in open {
            let response = answer(entry.request)
            entry.request.respond(response)
            entry.answered(response)
            entry.task?.cancel()
        }
        return open.count
    }

    private func finish(_ id: UInt64, with response: ServerResponse) {
        guard let entry = state.withLock({ $0.open.removeValue(forKey: id) }) else { return }
        entry.request.respond(response)
        entry.answered(response)
    }

    private enum Admission {
        case admitted(UInt64)
        case closed(ClosingAnswer)
    }
}
