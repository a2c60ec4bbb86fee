@_spi(GQLGateInternals) import GQLGateCore

/// A stream of results that its producer pushes to one consumer's handler,
/// called on the producer's thread: no task per consumer and no hop through
/// an async iterator, which is what a subscription fanned out to thousands
/// of clients needs. A consumer that wants `for try await` iterates the
/// `ResultStream` holding the channel instead; it is bridged to an
/// `AsyncThrowingStream` buffering at most `bufferLimit` results.
///
/// The producer calls `yield` and `finish` from one thread at a time (its
/// event loop). The consumer attaches once with `consume` and may `cancel`
/// from anywhere; the producer's `onTermination` then runs once, as it does
/// after `finish`, and when the last reference to the channel goes without
/// either (a producer that keeps a reference learns of a consumer that
/// left only through `cancel`).
@usableFromInline
package final class ResultChannel: Sendable {
    /// What the consumer is handed.
    package enum Event: Sendable {
        case result(GraphQLResponse)
        /// The last event: nil after a normal end, else the error the stream ended with.
        case finished((any Error)?)
    }

    /// Takes one event; returns false when it cannot keep up (the result was dropped).
    package typealias Consumer = @Sendable (Event) -> Bool

    private struct State: Sendable {
        /// Events yielded before a consumer took over, or while it was catching up on them.
        var pending: [Event] = []
        var consumer: Consumer?
        /// A consumer is being handed `pending`: new events queue behind them.
        var catchingUp = false
        var finished = false
        var terminated = false
        var onTermination: (@Sendable () -> Void)?
    }

    /// The most results held for a consumer that has not taken them yet.
    package let bufferLimit: Int
    private let state = Lock(State())

    /// - Parameter bufferLimit: results held before a consumer attaches (and,
    ///   when iterated, while it is busy); past it `yield` drops them.
    package init(bufferLimit: Int) {
        self.bufferLimit = max(1, bufferLimit)
    }

    deinit {
        // Dropped without a consumer: the producer must still learn it can stop.
        let action = state.withLock { state in
            state.terminated ? nil : state.onTermination
        }
        action?()
    }

    // MARK: - Producer

    /// Runs once when the stream ends: finished, cancelled by the consumer, or dropped.
    package func setOnTermination(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.onTermination = action }
    }

    /// Hands `response` to the consumer, or holds it until one attaches.
    /// Returns false when it was dropped: the consumer is too slow, or gone.
    @discardableResult
    package func yield(_ response: GraphQLResponse) -> Bool {
        let route: YieldRoute = state.withLock { state in
            guard !state.finished, !state.terminated else { return .dropped }
            if let consumer = state.consumer, !state.catchingUp { return .hand(consumer) }
            guard state.pending.count < bufferLimit else { return .dropped }
            state.pending.append(.result(response))
            return .held
        }
        switch route {
        case .hand(let consumer): return consumer(.result(response))
        case .held: return true
        case .dropped: return false
        }
    }

    private enum YieldRoute {
        case hand(Consumer)
        case held
        case dropped
    }

    /// Ends the stream, with `error` or normally.
    package func finish(throwing error: (any Error)? = nil) {
        let (consumer, onTermination): (Consumer?, (@Sendable () -> Void)?) = state.withLock { state in
            guard !state.finished, !state.terminated else { return (nil, nil) }
            state.finished = true
            guard let consumer = state.consumer, !state.catchingUp else {
                state.pending.append(.finished(error))
                return (nil, nil)
            }
            state.consumer = nil
            state.terminated = true
            defer { state.onTermination = nil }
            return (consumer, state.onTermination)
        }
        _ = consumer?(.finished(error))
        onTermination?()
    }

    // MARK: - Consumer

    /// Starts handing events to `consumer`: those held so far first, then
    /// each as it is yielded. Call once.
    package func consume(_ consumer: @escaping Consumer) {
        let accepted = state.withLock { state in
            guard state.consumer == nil, !state.terminated else { return false }
            state.consumer = consumer
            state.catchingUp = true
            return true
        }
        guard accepted else { return }
        while true {
            let batch: [Event] = state.withLock { state in
                let batch = state.pending
                state.pending = []
                if batch.isEmpty { state.catchingUp = false }
                return batch
            }
            guard !batch.isEmpty else { break }
            for event in batch {
                _ = consumer(event)
                if case .finished = event { end() }
            }
        }
    }

    /// The consumer stops listening: later events are dropped and the producer is told.
    package func cancel() {
        end()
    }

    private func end() {
        let onTermination = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.terminated else { return nil }
            state.terminated = true
            state.consumer = nil
            state.pending = []
            defer { state.onTermination = nil }
            return state.onTermination
        }
        onTermination?()
    }
}
