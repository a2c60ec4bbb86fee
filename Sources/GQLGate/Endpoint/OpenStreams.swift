@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPServer

/// The streamed answers (SSE, multipart, incremental) still open, each with the task
/// writing it. A stream is open until its connection is done with the body
/// (sent to the end, or the client gone), which also cancels its task.
/// `completeAll()` (the drain) cancels every task, which ends its stream with
/// the format's end, and cancels tasks started later at once. Streams that
/// end on their own (incremental answers, unlike subscriptions) are answers
/// in flight, which a drain lets finish first (`waitUntilAnswersEnded`).
final class OpenStreams: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var open: [UInt64: Task<Void, Never>?] = [:]
        /// The open streams that end on their own.
        var answers: Set<UInt64> = []
        var completing = false
    }

    private let state = Lock(State())
    /// Signalled when the last stream, or one that ends on its own, ends.
    private let ended = ChangeSignal()

    /// Streams whose body has not ended yet.
    var count: Int {
        state.withLock { $0.open.count }
    }

    /// Streams that end on their own whose body has not ended yet.
    var answersOpen: Int {
        state.withLock { $0.answers.count }
    }

    /// Runs `work`, which writes `body`, as a task preferring `loop`; the
    /// stream stays open until `body` ended. `endsOnItsOwn`: the stream is one
    /// answer that ends when its results do (an incremental answer), not a subscription.
    func start(writing body: StreamingBody, on loop: EventLoop, endsOnItsOwn: Bool = false, _ work: @escaping @Sendable () async -> Void) {
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            state.open[state.nextID] = .some(nil)
            if endsOnItsOwn { state.answers.insert(state.nextID) }
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
            let signal = self.state.withLock { state in
                let wasOpen = state.open.removeValue(forKey: id) != nil
                let wasAnswer = state.answers.remove(id) != nil
                return wasOpen && (state.open.isEmpty || wasAnswer)
            }
            if signal { self.ended.signal() }
        }
    }

    /// Waits until no stream is open (true) or `deadline` (monotonic nanoseconds, `GatewayClock`) comes (false).
    func waitUntilEmpty(before deadline: UInt64) -> Bool {
        ended.wait(until: { count == 0 }, deadline: deadline)
    }

    /// Waits until no stream that ends on its own is open (true) or `deadline` comes (false).
    func waitUntilAnswersEnded(before deadline: UInt64) -> Bool {
        ended.wait(until: { answersOpen == 0 }, deadline: deadline)
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
