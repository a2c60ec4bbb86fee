@_spi(GQLGateInternals) import GQLGateCore

/// Finished spans waiting for export: bounded, so that a slow or absent
/// receiver costs memory up to `capacity` spans and never holds a request.
/// A span that finds the queue full is dropped and counted; the span that
/// makes a batch tells the exporter, which need not wait for its timer.
package final class SpanQueue: Sendable {
    private let spans: Lock<[SpanRecord]>
    /// The most spans held.
    package let capacity: Int
    /// The spans that make a batch: the one that brings the queue to it calls `batchReady`.
    package let batchSize: Int
    private let batchReady: @Sendable () -> Void
    private let dropped: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - batchReady: told when the queue holds `batchSize` spans (on the thread that queued the last).
    ///   - dropped: told how many spans were dropped (queue full, or an export that failed).
    package init(capacity: Int = 4096, batchSize: Int = 512, batchReady: @escaping @Sendable () -> Void = {},
                dropped: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.capacity = capacity
        self.batchSize = batchSize
        self.batchReady = batchReady
        self.dropped = dropped
        spans = Lock([])
    }

    /// Queues `span`, or drops it when the queue is full.
    package func push(_ span: sending SpanRecord) {
        let held = spans.withLock { queued in
            guard queued.count < capacity else { return 0 }
            queued.append(span)
            return queued.count
        }
        if held == 0 {
            dropped(1)
        } else if held == batchSize {
            batchReady()
        }
    }

    /// Takes up to `limit` spans, oldest first.
    package func take(upTo limit: Int) -> [SpanRecord] {
        spans.withLock { queued in
            let count = min(limit, queued.count)
            let batch = Array(queued.prefix(count))
            queued.removeFirst(count)
            return batch
        }
    }

    /// Spans waiting.
    package var count: Int { spans.withLock { $0.count } }

    /// Counts `count` spans lost after they left the queue (an export that failed).
    package func lost(_ count: Int) {
        dropped(count)
    }
}
