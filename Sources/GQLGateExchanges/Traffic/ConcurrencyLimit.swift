import DequeModule
@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// At most `limit` holders at once; the rest wait in a queue, oldest first,
/// each for at most `queueTimeout`. A waiter whose task is cancelled (the
/// client left) or whose time ran out leaves the queue at once. Taking a
/// free place is one short lock.
package final class ConcurrencyLimit: Sendable {
    private struct State {
        var holders = 0
        /// Waiters in arrival order; those that left are skipped when met.
        var queue = Deque<UInt64>()
        var waiting: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var lastID: UInt64 = 0
    }

    /// Most holders at once.
    package let limit: Int
    /// The longest a waiter waits.
    package let queueTimeout: Duration
    private let state = Lock(State())
    private let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameter sleep: the waits of `queueTimeout` (the gateway's loops' timers).
    package init(limit: Int, queueTimeout: Duration,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        precondition(limit > 0)
        self.limit = limit
        self.queueTimeout = queueTimeout
        self.sleep = sleep
    }

    /// Holders now.
    package var holders: Int { state.withLock { $0.holders } }
    /// Waiters now.
    package var waiters: Int { state.withLock { $0.waiting.count } }

    /// Takes a place, waiting for one when all are held; `release()` it when
    /// done. Throws 503 `UPSTREAM_OVERLOADED` past `queueTimeout`, and
    /// `CancellationError` when the task is cancelled while waiting.
    package func acquire() async throws {
        let free = state.withLock { state in
            guard state.holders < limit, state.waiting.isEmpty else { return false }
            state.holders += 1
            return true
        }
        if !free { try await wait() }
    }

    /// Gives a place back: to the oldest waiter, else free.
    package func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            while let id = state.queue.popFirst() {
                if let waiter = state.waiting.removeValue(forKey: id) { return waiter }
            }
            state.holders -= 1
            return nil
        }
        next?.resume()
    }

    private func wait() async throws {
        let id = state.withLock { state in
            state.lastID &+= 1
            return state.lastID
        }
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Bool, CancellationError> in
                    // Cancelled before it was queued: the cancellation handler found nothing to take out.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.holders < limit, state.waiting.isEmpty {
                        state.holders += 1
                        return .success(true)
                    }
                    state.queue.append(id)
                    state.waiting[id] = continuation
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false):
                    timer = Task { [self] in
                        guard (try? await sleep(queueTimeout)) != nil else { return }
                        leave(id, with: GatewayError.upstreamOverloaded(retryAfter: max(queueTimeout, .seconds(1))))
                    }
                }
            }
        } onCancel: {
            leave(id, with: CancellationError())
        }
    }

    /// Takes waiter `id` out of the queue with `error`, unless it got a place meanwhile.
    private func leave(_ id: UInt64, with error: any Error) {
        state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(throwing: error)
    }
}
