@_spi(GQLGateInternals) package import GQLGateCore

/// The parts of a `multipart/mixed` answer, taken one at a time as the
/// upstream sends them (`HTTPClientRequest.readsParts`): each part's body,
/// its header fields left out. One reader; `next` from one task at a time.
///
/// Backpressure: the parts received and not taken yet are held for the
/// reader; once they hold `PartQueue.pauseThreshold` bytes or more the
/// transfer is paused (libcurl reads nothing more from the connection) until
/// the reader takes one. Dropping the parts before their end (or cancelling
/// the task waiting in `next`) ends the transfer.
package final class MultipartParts: Sendable {
    private let queue: PartQueue

    init(queue: PartQueue) {
        self.queue = queue
    }

    /// The reader is gone: the transfer ends unless it has already.
    deinit {
        queue.cancel()
    }

    /// The next part's body, waiting for it; nil after the last part (the
    /// close delimiter came). Throws `HTTPClientError` when the answer failed
    /// before its end (timeout, connection lost, past `maxResponseBytes`, no
    /// multipart body, ended before its close delimiter), `CancellationError`
    /// when the waiting task was cancelled (which ends the transfer).
    package func next() async throws -> Bytes? {
        try await queue.take()
    }
}

/// What the loop receiving a multipart answer and the task reading its parts
/// share: the parts not taken yet, the end, the reader's wait, and whether the
/// transfer is paused. `Sendable` through its lock.
final class PartQueue: Sendable {
    /// How the reader's side reaches the transfer on its loop.
    struct Control: Sendable {
        /// Resumes the paused transfer.
        let resume: @Sendable () -> Void
        /// Ends the transfer.
        let cancel: @Sendable () -> Void
    }

    /// Bytes of parts not taken at which the transfer pauses.
    static let pauseThreshold = 256 << 10

    private struct State {
        var parts: [Bytes] = []
        var heldBytes = 0
        var paused = false
        /// Set once the answer ended: nil for a normal end, else the error it ended with.
        var end: HTTPClientError??
        var waiter: UnsafeContinuation<Bytes?, any Error>?
        var control: Control?
    }

    private let state = Lock(State())
    /// The held parts' bytes are taken from it until the reader takes them.
    private let budget: ResponseBytesBudget

    init(budget: ResponseBytesBudget) {
        self.budget = budget
    }

    deinit {
        budget.giveBack(state.withLock { $0.heldBytes })
    }

    /// Set before the transfer starts.
    func connect(_ control: Control) {
        state.withLock { $0.control = control }
    }

    // MARK: - The loop's side

    /// Whether the transfer should pause before taking more bytes: the parts
    /// waiting hold `pauseThreshold` bytes or more. Notes the pause, so the reader resumes it.
    func shouldPause() -> Bool {
        state.withLock { state in
            guard state.end == nil, state.heldBytes >= Self.pauseThreshold else { return false }
            state.paused = true
            return true
        }
    }

    /// Hands `part` to the waiting reader, or holds it (its bytes stay taken
    /// from the budget until the reader takes it); drops it once the answer ended.
    func push(_ part: Bytes) {
        let (held, waiter) = state.withLock { state -> (Bool, UnsafeContinuation<Bytes?, any Error>?) in
            guard state.end == nil else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (false, waiter)
            }
            state.parts.append(part)
            state.heldBytes += part.count
            return (true, nil)
        }
        guard !held else { return }
        budget.giveBack(part.count)
        waiter?.resume(returning: part)
    }

    /// The answer ended: the reader gets the parts held, then nil (`error` nil) or `error`.
    func finish(_ error: HTTPClientError?) {
        let waiter = state.withLock { state -> UnsafeContinuation<Bytes?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = .some(error)
            state.control = nil  // the transfer is over: let go of it
            defer { state.waiter = nil }
            return state.waiter
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }

    // MARK: - The reader's side

    /// The next part, waiting for it; nil at the end.
    func take() async throws -> Bytes? {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Bytes?, any Error>) in
                let (outcome, resume) = state.withLock { state -> (Result<Bytes?, any Error>?, Control?) in
                    if !state.parts.isEmpty {
                        let part = state.parts.removeFirst()
                        state.heldBytes -= part.count
                        budget.giveBack(part.count)
                        let resume = state.paused && state.heldBytes < Self.pauseThreshold ? state.control : nil
                        if resume != nil { state.paused = false }
                        return (.success(part), resume)
                    }
                    if let end = state.end {
                        return (end.map { .failure($0) } ?? .success(nil), nil)
                    }
                    if Task.isCancelled { return (.failure(CancellationError()), nil) }
                    state.waiter = continuation
                    return (nil, nil)
                }
                resume?.resume()
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel(throwing: CancellationError())
        }
    }

    /// The reader is gone or cancelled: a waiting `take` throws `error`, and the transfer ends.
    func cancel(throwing error: any Error = CancellationError()) {
        let (waiter, control) = state.withLock { state -> (UnsafeContinuation<Bytes?, any Error>?, Control?) in
            defer { state.waiter = nil }
            return (state.waiter, state.end == nil ? state.control : nil)
        }
        waiter?.resume(throwing: error)
        control?.cancel()
    }
}
