import Foundation
import GQLGateCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

private func monotonicNow() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// An atomic number threads share.
private final class SharedCount: Sendable {
    let value: Atomic<Int>
    init(_ value: Int) { self.value = Atomic(value) }
}

@Suite struct ChangeSignalTests {
    @Test func aConditionThatAlreadyHoldsReturnsAtOnce() {
        let signal = ChangeSignal()
        #expect(signal.wait(until: { true }, deadline: 0))
    }

    @Test func aConditionThatNeverHoldsEndsAtTheDeadline() {
        let signal = ChangeSignal()
        var evaluations = 0
        let ended = signal.wait(until: {
            evaluations += 1
            return false
        }, deadline: monotonicNow() + 20_000_000)
        #expect(!ended)
        #expect(evaluations <= 2, "the condition is looked at again only after a signal or at the deadline")
    }

    @Test func aDeadlineInThePastStillLooksAtTheConditionOnce() {
        let signal = ChangeSignal()
        #expect(!signal.wait(until: { false }, deadline: 0))
    }

    @Test func wakesWhenOtherThreadsMakeTheConditionTrueAndSignal() {
        let signal = ChangeSignal()
        let remaining = SharedCount(3)
        for _ in 0..<3 {
            Thread.detachNewThread {
                remaining.value.subtract(1, ordering: .releasing)
                signal.signal()
            }
        }
        #expect(signal.wait(until: { remaining.value.load(ordering: .acquiring) == 0 }, deadline: monotonicNow() + 10_000_000_000))
        #expect(remaining.value.load(ordering: .acquiring) == 0)
    }

    @Test func aSignalWithoutTheChangeDoesNotEndTheWait() {
        let signal = ChangeSignal()
        let ready = SharedCount(0)
        Thread.detachNewThread {
            signal.signal()  // nothing changed yet: the waiter looks again and waits on
            ready.value.store(1, ordering: .releasing)
            signal.signal()
        }
        #expect(signal.wait(until: { ready.value.load(ordering: .acquiring) == 1 }, deadline: monotonicNow() + 10_000_000_000))
        #expect(ready.value.load(ordering: .acquiring) == 1)
    }
}
