@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import Testing

@Suite struct LoopSleepTests {
    @Test func sleepResumesOnTheSameLoopAfterTheDelay() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let (waited, onLoop) = try await Task(executorPreference: loop) {
            let start = GatewayClock.system.monotonicNanoseconds()
            try await EventLoop.sleep(for: .milliseconds(30))
            return (GatewayClock.system.monotonicNanoseconds() - start, EventLoop.current === loop)
        }.value
        #expect(waited >= 30_000_000)
        #expect(onLoop)
    }

    @Test func cancellationEndsTheSleepAtOnce() async {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let sleeper = Task(executorPreference: loop) { () -> UInt64 in
            let start = GatewayClock.system.monotonicNanoseconds()
            do {
                try await EventLoop.sleep(for: .seconds(60))
                return 0
            } catch {
                return GatewayClock.system.monotonicNanoseconds() - start
            }
        }
        sleeper.cancel()
        let waited = await sleeper.value
        #expect(waited > 0, "the sleep ended with CancellationError")
        #expect(waited < 10_000_000_000)
    }
}
