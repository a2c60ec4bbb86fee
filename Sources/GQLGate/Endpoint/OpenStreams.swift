import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPServer

/// The streamed answers (SSE, multipart) still open, each with the task
/// writing it. A stream is open until its connection is done with the body
/// (sent to the end, or the client gone), which also cancels its task.
/// `completeAll()` (the drain) cancels every task, which ends its stream with
/// the format's end, and cancels tasks started later at once.
final class OpenStreams: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var open: [UInt64: Task<Void, Never>?] = [:]
        var completing = false
    }

    private let state = Lock(State())
    /// Signalled when the last stream ends.
    private let emptied = ChangeSignal()

    /// Streams whose body has not ended yet.
    var count: Int {
        state.withLock { $0.open.count }
    }

    /// Runs `work`, which writes `body`, as a task preferring `loop`; the
    /// stream stays open until `body` ended.
    func start(writing body: StreamingBody, on loop: EventLoop, _ work: @escaping @Sendable () async -> Void) {
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            state.open[state.nextID] = .some(nil)
            return state.nextID
        }
        let task = Task(executorPreference: loop) { await work() }
        let completing = state.withLock { state -> Bool in
            if state.open.keys.contains(id) { state.open[id] = task }
            return state.completing
        }
        if completing { task.cancel() }
        body.onTermination { _ in
            task.cancel()
            let empty = self.state.withLock { $0.open.removeValue(forKey: id) != nil && $0.open.isEmpty }
            if empty { self.emptied.signal() }
        }
    }

    /// Waits until no stream is open (true) or `deadline` (monotonic nanoseconds, `GatewayClock`) comes (false).
    func waitUntilEmpty(before deadline: UInt64) -> Bool {
        emptied.wait(until: { count == 0 }, deadline: deadline)
    }

    /// Cancels every stream's task (each writes its end) and every later one.
    func completeAll() {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            state.completing = true
            return state.open.values.compactMap { $0 }
        }
        for task in tasks { task.cancel() }
    }
}
