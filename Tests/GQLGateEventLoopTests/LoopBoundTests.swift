import GQLGateEventLoop
import Testing

/// A loop-bound counter: not `Sendable`, used on its loop only.
private final class LoopCounter {
    var count = 0
}

@available(*, unavailable)
extension LoopCounter: Sendable {}

@Suite struct LoopBoundTests {
    @Test func carriesALoopBoundValueToItsLoopThroughExecute() async {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let counter = LoopBound(LoopCounter(), loop: loop)
        let counts = await withCheckedContinuation { (continuation: CheckedContinuation<[Int], Never>) in
            for _ in 0..<3 { loop.execute { counter.value.count += 1 } }
            loop.execute {
                #expect(loop.inLoop)
                continuation.resume(returning: [counter.value.count])
            }
        }
        #expect(counts == [3])
        #expect(counter.loop === loop)
    }
}
