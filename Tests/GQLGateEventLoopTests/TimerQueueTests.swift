@_spi(GQLGateInternals) import GQLGateCore
@testable import GQLGateEventLoop
import Testing

/// What fired timers wrote, taken in batches.
private final class Log: Sendable {
    private let lines = Lock<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    func take() -> [String] {
        lines.withLock { lines in
            defer { lines = [] }
            return lines
        }
    }
}

@Suite("TimerQueue")
struct TimerQueueTests {
    /// Runs the actions `queue` says are due at `now` and returns what they recorded.
    private func fire(_ queue: inout TimerQueue, at now: UInt64, into log: Log) -> [String] {
        for action in queue.popDue(now: now) { action() }
        return log.take()
    }

    @Test("timers fire in deadline order, only once due")
    func deadlineOrder() {
        var queue = TimerQueue()
        let log = Log()
        _ = queue.schedule(at: 30) { log.append("c") }
        _ = queue.schedule(at: 10) { log.append("a") }
        _ = queue.schedule(at: 20) { log.append("b") }
        #expect(queue.nextDeadline() == 10)
        #expect(fire(&queue, at: 5, into: log).isEmpty)
        #expect(fire(&queue, at: 20, into: log) == ["a", "b"])
        #expect(fire(&queue, at: 100, into: log) == ["c"])
        #expect(queue.isEmpty)
    }

    @Test("a cancelled timer never fires and no longer counts; cancelling a fired one does nothing")
    func cancel() {
        var queue = TimerQueue()
        let log = Log()
        let first = queue.schedule(at: 10) { log.append("first") }
        let second = queue.schedule(at: 20) { log.append("second") }
        queue.cancel(first)
        #expect(queue.nextDeadline() == 20)
        #expect(fire(&queue, at: 20, into: log) == ["second"])
        queue.cancel(second)
        #expect(queue.isEmpty)
        let third = queue.schedule(at: 30) { log.append("third") }
        #expect(!queue.isEmpty)
        queue.cancel(third)
        #expect(queue.isEmpty)
        #expect(fire(&queue, at: 100, into: log).isEmpty)
    }

    @Test("thousands of timers re-armed over and over keep firing only the live ones")
    func rearming() {
        var queue = TimerQueue()
        let log = Log()
        var ids = (0..<5_000).map { index in queue.schedule(at: 1_000) { log.append("old \(index)") } }
        for index in ids.indices {
            queue.cancel(ids[index])
            ids[index] = queue.schedule(at: 2_000) { log.append("new") }
        }
        #expect(fire(&queue, at: 1_500, into: log).isEmpty)
        #expect(fire(&queue, at: 2_000, into: log).count == 5_000)
        #expect(queue.isEmpty)
    }
}
