import GQLGateCore
import Synchronization

/// The gateway's loops; hands them out round-robin.
package final class EventLoopGroup: Sendable {
    /// The loops, each with its own thread.
    package let loops: [EventLoop]
    private let counter = Atomic<Int>(0)

    /// Starts `count` loops (at least one).
    package init(count: Int) {
        loops = (0..<max(1, count)).map { EventLoop(index: $0) }
    }

    /// The next loop in turn.
    package func next() -> EventLoop {
        if loops.count == 1 { return loops[0] }
        let n = counter.add(1, ordering: .relaxed).oldValue
        return loops[n % loops.count]
    }

    /// Stops every loop and waits for their threads.
    package func shutdownAndWait() {
        for loop in loops { loop.shutdownAndWait() }
    }

    /// Stops every loop and waits for their threads until `deadline`
    /// (monotonic nanoseconds, `GatewayClock`); the indexes of loops whose thread still
    /// runs then (busy with work that does not return), left to the process's exit.
    package func shutdownAndWait(until deadline: UInt64) -> [Int] {
        for loop in loops { loop.requestShutdown() }
        return loops.filter { !$0.waitForThread(until: deadline) }.map(\.index)
    }

    /// Cores online on this machine.
    package static var coreCount: Int {
        max(1, systemCoreCount())
    }
}

#if canImport(Glibc)
import Glibc
private func systemCoreCount() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
#else
import Darwin
private func systemCoreCount() -> Int { Int(sysconf(_SC_NPROCESSORS_ONLN)) }
#endif
