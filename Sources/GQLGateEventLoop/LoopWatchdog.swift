@_spi(GQLGateInternals) import GQLGateCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reports loops busy past a threshold: a loop that runs work without going
/// back to wait for events holds up everything else it serves. A thread of
/// its own looks at every loop of a group four times a `threshold` and calls
/// `report` once for each busy stretch longer than `threshold`.
package final class LoopWatchdog: Sendable {
    /// A loop busy past the threshold.
    package struct BusyLoop: Sendable, Equatable {
        /// The loop's index in its group.
        package let index: Int
        /// How long it had been busy when seen.
        package let busy: Duration
        /// The request its work is for, when the work noted it (`EventLoop.working(for:_:)`).
        package let requestID: String?
    }

    private let loops: [EventLoop]
    private let threshold: Duration
    private let report: @Sendable (BusyLoop) -> Void
    private let stopping = Atomic<Bool>(false)
    /// Signalled by `stop()`, so the thread ends without waiting for its next look.
    private let stopped = ChangeSignal()

    /// Starts watching `group`'s loops.
    package init(group: EventLoopGroup, threshold: Duration, report: @escaping @Sendable (BusyLoop) -> Void) {
        loops = group.loops
        self.threshold = threshold
        self.report = report
        let box = Unmanaged.passRetained(self).toOpaque()  // released by the thread's start routine
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { argument in
            Unmanaged<LoopWatchdog>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, box)
        precondition(rc == 0, "cannot start the loop watchdog thread: \(rc)")
        pthread_detach(thread)
    }

    /// Stops watching; the thread ends at once.
    package func stop() {
        stopping.store(true, ordering: .relaxed)
        stopped.signal()
    }

    private func run() {
        let interval = max(1_000_000, threshold.nanoseconds / 4)  // nanoseconds
        var reported = [UInt64](repeating: 0, count: loops.count)  // the stretch each loop was last reported for
        while !stopped.wait(until: { stopping.load(ordering: .relaxed) }, deadline: GatewayClock.system.monotonicNanoseconds() + interval) {
            let now = GatewayClock.system.monotonicNanoseconds()
            for (position, loop) in loops.enumerated() {
                guard let stretch = loop.busyStretch(), stretch.since != reported[position],
                      now > stretch.since, now - stretch.since > threshold.nanoseconds
                else { continue }
                reported[position] = stretch.since
                report(BusyLoop(index: loop.index, busy: .nanoseconds(Int64(now - stretch.since)), requestID: stretch.requestID))
            }
        }
    }
}
