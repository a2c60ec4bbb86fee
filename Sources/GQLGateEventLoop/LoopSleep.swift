extension EventLoop {
    /// Suspends the calling task for `delay` on the current loop's timer heap
    /// (no other thread involved), or with `Task.sleep` off the loops.
    /// Throws `CancellationError` as soon as the task is cancelled.
    package static func sleep(for delay: Duration) async throws {
        guard let loop = current else {
            try await Task.sleep(for: delay)
            return
        }
        try await loop.sleep(for: delay)
    }

    /// Suspends the calling task for `delay` on this loop's timer heap.
    package func sleep(for delay: Duration) async throws {
        let sleep = LoopBound(LoopSleep(), loop: self)
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                if inLoop {
                    sleep.value.start(on: self, after: delay, continuation)
                } else {
                    execute { sleep.value.start(on: self, after: delay, continuation) }
                }
            }
        } onCancel: {
            execute { sleep.value.cancel(on: self) }
        }
    }
}

/// One sleeping task: its continuation and timer, resumed exactly once.
/// Loop-bound: created by the sleeping task, then touched only on its loop's
/// thread (start, the timer and cancellation all run there, in the order
/// they were queued).
private final class LoopSleep {
    private var continuation: UnsafeContinuation<Void, any Error>?
    private var timer: EventLoopTimerID?
    private var cancelled = false

    func start(on loop: EventLoop, after delay: Duration, _ continuation: UnsafeContinuation<Void, any Error>) {
        guard !cancelled else {
            continuation.resume(throwing: CancellationError())
            return
        }
        self.continuation = continuation
        timer = loop.schedule(after: delay) { [self] in
            timer = nil
            self.continuation.take()?.resume()
        }
    }

    func cancel(on loop: EventLoop) {
        cancelled = true
        if let timer { loop.cancel(timer) }
        timer = nil
        continuation.take()?.resume(throwing: CancellationError())
    }
}

@available(*, unavailable)
extension LoopSleep: Sendable {}
