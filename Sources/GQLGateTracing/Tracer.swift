@_spi(GQLGateInternals) package import GQLGateCore

/// Makes gqlgate's spans: decides sampling, names new spans and hands
/// finished ones to the export queue. Exists only while `tracing.enabled`
/// is set; with tracing off, no stage or transport holds one.
package final class Tracer: Sendable {
    package let sampler: Sampler
    package let ids: SpanIDs
    package let queue: SpanQueue
    private let clock: GatewayClock

    package init(sampler: Sampler, queue: SpanQueue, ids: SpanIDs = SpanIDs(), clock: GatewayClock = .system) {
        self.sampler = sampler
        self.queue = queue
        self.ids = ids
        self.clock = clock
    }

    /// A new server span's context and its parent's span id (0 for a root),
    /// for a request with these `traceparent` and `tracestate` fields; nil
    /// when the trace is not sampled.
    package func startServerSpan(traceparent: String?, tracestate: String?) -> (context: SpanContext, parentSpanID: UInt64)? {
        let parent = traceparent.flatMap { SpanContext(traceparent: $0, tracestate: tracestate) }
        let traceID = parent?.traceID ?? ids.nextTraceID()
        guard sampler.samples(traceID: traceID, parent: parent) else { return nil }
        let context = SpanContext(traceID: traceID, spanID: ids.next(), sampled: true, traceState: parent?.traceState)
        return (context, parent?.spanID ?? 0)
    }

    /// A new span's context within `parent`'s trace.
    package func child(of parent: SpanContext) -> SpanContext {
        SpanContext(traceID: parent.traceID, spanID: ids.next(), sampled: parent.sampled, traceState: parent.traceState)
    }

    /// The wall time now, in Unix nanoseconds.
    package func nowUnixNano() -> UInt64 {
        UInt64(clock.wallTime().nanoseconds)
    }

    /// The wall time of the monotonic reading `monotonic` (nanoseconds, `GatewayClock`), in Unix nanoseconds.
    package func unixNano(ofMonotonic monotonic: UInt64) -> UInt64 {
        let wall = nowUnixNano()
        let ago = clock.monotonicNanoseconds() &- monotonic
        return ago < wall ? wall - ago : wall
    }

    /// Queues a finished span for export (never waits).
    package func finished(_ span: sending SpanRecord) {
        queue.push(span)
    }
}
