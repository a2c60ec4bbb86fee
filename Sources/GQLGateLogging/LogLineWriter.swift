import Dispatch
@_spi(GQLGateInternals) import GQLGateCore

#if canImport(Glibc)
import Glibc
#endif

/// Writes log lines to a file descriptor (stderr by default) from its own
/// thread, so a thread that logs (a gateway loop, the server thread) only
/// copies bytes into a buffer and never waits on the terminal or pipe behind
/// stderr. The buffer is bounded: when the output cannot keep up, lines are
/// dropped and counted, and a line saying how many follows once it can.
package final class LogLineWriter: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var dropped = 0
        var flushWaiters: [DispatchSemaphore] = []
        var stopping = false
    }

    private let fileDescriptor: Int32
    private let capacity: Int
    private let state = Lock(State())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts the writer thread.
    /// - Parameters:
    ///   - fileDescriptor: where lines go; 2 is stderr.
    ///   - capacity: the most bytes waiting to be written before lines are dropped.
    package init(fileDescriptor: Int32 = 2, capacity: Int = 1 << 20) {
        self.fileDescriptor = fileDescriptor
        self.capacity = capacity
        let box = Unmanaged.passRetained(self).toOpaque()  // released by the thread's start routine
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { argument in
            let writer = Unmanaged<LogLineWriter>.fromOpaque(argument!).takeRetainedValue()
            writer.run()
            return nil
        }, box)
        precondition(rc == 0, "cannot start the log writer thread: \(rc)")
        pthread_detach(thread)
    }

    /// Queues `line` (which should end in a newline); never blocks on the output.
    package func write(_ line: String) {
        var line = line
        let wasEmpty = line.withUTF8 { bytes in
            state.withLock { state -> Bool in
                guard !state.stopping, state.pending.count + bytes.count <= capacity else {
                    state.dropped += 1
                    return false
                }
                let wasEmpty = state.pending.isEmpty
                state.pending.append(contentsOf: bytes)
                return wasEmpty
            }
        }
        if wasEmpty { wakeUp.signal() }
    }

    /// Waits until every line queued before the call is written.
    package func flush() {
        let written = DispatchSemaphore(value: 0)
        let running = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.flushWaiters.append(written)
            return true
        }
        guard running else { return }
        wakeUp.signal()
        written.wait()
    }

    /// Writes what is queued and ends the thread; later lines are dropped.
    package func shutdown() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        wakeUp.signal()
        stopped.wait()
    }

    private func run() {
        var batch: [UInt8] = []
        while true {
            wakeUp.wait()
            // Gather what else comes in the next moment, so a busy gateway
            // wakes this thread and calls write(2) at most ~50 times a second
            // instead of once a line; a flush or a stop ends the wait early.
            _ = wakeUp.wait(timeout: .now() + .milliseconds(20))
            let (dropped, waiters, stopping) = state.withLock { state in
                swap(&batch, &state.pending)
                defer {
                    state.dropped = 0
                    state.flushWaiters.removeAll()
                }
                return (state.dropped, state.flushWaiters, state.stopping)
            }
            if dropped > 0 {
                batch.append(contentsOf: Array("{\"level\":\"warning\",\"msg\":\"log lines dropped\",\"count\":\(dropped)}\n".utf8))
            }
            writeAll(batch)
            batch.removeAll(keepingCapacity: batch.capacity <= capacity)
            for waiter in waiters { waiter.signal() }
            if stopping {
                stopped.signal()
                return
            }
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
