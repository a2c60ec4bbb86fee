@_spi(GQLGateInternals) import GQLGateCore

/// Runs at most one call per key at a time and gives its result to every
/// caller that asks for the same key meanwhile.
///
/// The call runs in a task of its own (on the first caller's loop), not in
/// the first caller's task, so a caller that is cancelled just leaves: the others keep waiting and the
/// call keeps running. Only when every caller has left is the call
/// cancelled. State sits behind one `Lock` rather than per loop because
/// identical requests arrive on different loops (requests are spread round
/// robin); it is held only for dictionary updates, never across an await.
package final class SharedCalls<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Call {
        var generation: UInt64
        var waiters: [UInt64: UnsafeContinuation<Value, any Error>]
        var task: Task<Void, Never>
    }

    private struct State {
        var calls: [Key: Call] = [:]
        var nextID: UInt64 = 0
        /// Callers that have an id but have not joined a call yet; one
        /// cancelled meanwhile is removed from here and never joins.
        var arriving: Set<UInt64> = []
    }

    private let state = Lock(State())
    private let executor: @Sendable () -> (any TaskExecutor)?

    /// - Parameter executor: the calling thread's executor, where a call
    ///   runs (the gateway passes its loops'); nil: the global executor.
    package init(executor: @escaping @Sendable () -> (any TaskExecutor)? = { nil }) {
        self.executor = executor
    }

    /// Keys with a call running.
    package var inFlight: Int { state.withLock { $0.calls.count } }

    /// Callers waiting for a running call, the one that started it included.
    package var waiting: Int { state.withLock { $0.calls.values.reduce(0) { $0 + $1.waiters.count } } }

    /// The result of `call` for `key`: started now when no call for `key`
    /// runs, else the running call's result.
    package func value(for key: Key, call: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.arriving.insert(state.nextID)
            return state.nextID
        }
        // Unsafe continuations: every one is resumed exactly once, by `finish`,
        // by `leave`, or at once in `join` when its caller left before joining.
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                join(key: key, id: id, continuation: continuation, call: call)
            }
        } onCancel: {
            leave(key: key, id: id)
        }
    }

    private func join(key: Key, id: UInt64, continuation: UnsafeContinuation<Value, any Error>,
                      call: @escaping @Sendable () async throws -> Value) {
        let joined = state.withLock { state -> Bool in
            guard state.arriving.remove(id) != nil else { return false }
            if state.calls[key] != nil {
                state.calls[key]?.waiters[id] = continuation
                return true
            }
            // Started under the lock, so the call is in the table with its task
            // before anyone can look for it. A task never starts running on the
            // thread that creates it: on the caller's loop (when there is one, so
            // the upstream call runs on the thread an inline call would) it runs
            // after this returns; elsewhere its `finish` waits for the lock.
            let task = Task(executorPreference: executor()) {
                let result: Result<Value, any Error>
                do { result = .success(try await call()) } catch { result = .failure(error) }
                self.finish(key: key, generation: id, with: result)
            }
            state.calls[key] = Call(generation: id, waiters: [id: continuation], task: task)
            return true
        }
        if !joined { continuation.resume(throwing: CancellationError()) }
    }

    private func finish(key: Key, generation: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [UnsafeContinuation<Value, any Error>] in
            guard state.calls[key]?.generation == generation, let call = state.calls.removeValue(forKey: key) else { return [] }
            return Array(call.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func leave(key: Key, id: UInt64) {
        let (waiter, abandoned) = state.withLock { state -> (UnsafeContinuation<Value, any Error>?, Task<Void, Never>?) in
            if state.arriving.remove(id) != nil { return (nil, nil) }
            guard let waiter = state.calls[key]?.waiters.removeValue(forKey: id) else { return (nil, nil) }
            guard state.calls[key]?.waiters.isEmpty == true else { return (waiter, nil) }
            return (waiter, state.calls.removeValue(forKey: key)?.task)
        }
        abandoned?.cancel()
        waiter?.resume(throwing: CancellationError())
    }
}
