import Synchronization

/// Finished spans waiting for export: bounded, so that a slow or absent
/// receiver costs memory up to `capacity` spans and never holds a request.
/// A span that finds the queue full is dropped and counted.
public final class SpanQueue: Sendable {
    private let spans: Mutex<[SpanRecord]>
    /// The most spans held.
    public let capacity: Int
    private let dropped: @Sendable (Int) -> Void

    /// - Parameter dropped: told how many spans were dropped (queue full, or an export that failed).
    public init(capacity: Int = 4096, dropped: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.capacity = capacity
        self.dropped = dropped
        spans = Mutex([])
    }

    /// Queues `span`, or drops it when the queue is full.
    public func push(_ span: sending SpanRecord) {
        let taken = spans.withLock { queued in
            guard queued.count < capacity else { return false }
            queued.append(span)
            return true
        }
        if !taken { dropped(1) }
    }

    /// Takes up to `limit` spans, oldest first.
    public func take(upTo limit: Int) -> [SpanRecord] {
        spans.withLock { queued in
            let count = min(limit, queued.count)
            let batch = Array(queued.prefix(count))
            queued.removeFirst(count)
            return batch
        }
    }

    /// Spans waiting.
    public var count: Int { spans.withLock { $0.count } }

    /// Counts `count` spans lost after they left the queue (an export that failed).
    public func lost(_ count: Int) {
        dropped(count)
    }
}
