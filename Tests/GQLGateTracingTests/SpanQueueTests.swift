@_spi(GQLGateInternals) import GQLGateCore
import GQLGateTracing
import Testing

@Suite struct SpanQueueTests {
    private func span(_ id: UInt64) -> SpanRecord {
        SpanRecord(context: SpanContext(traceID: TraceID(high: 1, low: 1), spanID: id, sampled: true), parentSpanID: 0, name: "s",
                   kind: .server, startUnixNano: 1, endUnixNano: 2)
    }

    @Test func aFullQueueDropsAndCountsWhatDoesNotFit() {
        let dropped = Lock(0)
        let queue = SpanQueue(capacity: 3, dropped: { count in dropped.withLock { $0 += count } })
        for id in 1...5 { queue.push(span(UInt64(id))) }
        #expect(queue.count == 3)
        #expect(dropped.withLock { $0 } == 2)
        #expect(queue.take(upTo: 2).map(\.context.spanID) == [1, 2])
        #expect(queue.take(upTo: 10).map(\.context.spanID) == [3])
        queue.lost(4)
        #expect(dropped.withLock { $0 } == 6)
    }

    @Test func theSpanThatMakesABatchTellsTheExporterOnce() {
        let ready = Lock(0)
        let queue = SpanQueue(capacity: 10, batchSize: 4, batchReady: { ready.withLock { $0 += 1 } })
        for id in 1...3 { queue.push(span(UInt64(id))) }
        #expect(ready.withLock { $0 } == 0)
        queue.push(span(4))
        #expect(ready.withLock { $0 } == 1)
        for id in 5...7 { queue.push(span(UInt64(id))) }
        #expect(ready.withLock { $0 } == 1)
        #expect(queue.take(upTo: 4).count == 4)  // 3 left: the next one makes a batch again
        queue.push(span(8))
        #expect(ready.withLock { $0 } == 2)
    }
}
