package import GQLGateCore

/// Parent-based sampling: a client's `traceparent` decides for its trace
/// (sampled flag set: sampled; clear: not); a new trace is sampled when its
/// id falls within `ratio` (OpenTelemetry's TraceIdRatioBased, on the id's
/// low 8 bytes, so every service with the same ratio agrees).
package struct Sampler: Sendable, Equatable {
    /// The share of new traces sampled, 0 to 1.
    package let ratio: Double
    private let bound: UInt64

    package init(ratio: Double) {
        self.ratio = min(max(ratio, 0), 1)
        // Compared with the id's low 63 bits, as OpenTelemetry's reference samplers do.
        bound = self.ratio >= 1 ? .max : UInt64(self.ratio * 0x1p63)
    }

    /// Whether a span with `parent` (nil: a new trace) in trace `traceID` is sampled.
    package func samples(traceID: TraceID, parent: SpanContext?) -> Bool {
        if let parent { return parent.sampled }
        if ratio >= 1 { return true }
        return traceID.low & 0x7FFF_FFFF_FFFF_FFFF < bound
    }
}
