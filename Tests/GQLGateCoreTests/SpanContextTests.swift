import GQLGateCore
import Testing

@Suite struct SpanContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func parsesTheSpecificationsExample() throws {
        let context = try #require(SpanContext(traceparent: Self.valid, tracestate: "congo=t61rcWkgMzE"))
        #expect(context.traceID == TraceID(high: 0x4bf9_2f35_77b3_4da6, low: 0xa3ce_929d_0e0e_4736))
        #expect(context.spanID == 0x00f0_67aa_0ba9_02b7)
        #expect(context.sampled)
        #expect(context.traceState == "congo=t61rcWkgMzE")
        #expect(context.traceparent == Self.valid)
    }

    @Test func readsTheSampledFlagOnly() throws {
        let context = try #require(SpanContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"))
        #expect(!context.sampled)
        #expect(try #require(SpanContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03")).sampled)
    }

    @Test(arguments: [
        "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",  // no flags
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // zero span id
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // forbidden version
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper case
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",  // version 00 has no more fields
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
    ])
    func rejectsInvalidFields(_ field: String) {
        #expect(SpanContext(traceparent: field) == nil)
    }

    @Test func acceptsALaterVersionWithMoreFields() throws {
        let context = try #require(SpanContext(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds"))
        #expect(context.traceparent == Self.valid)  // sent on as version 00
    }

    @Test func dropsATracestateThatIsNotPrintableOrTooLong() throws {
        #expect(try #require(SpanContext(traceparent: Self.valid, tracestate: "a=b\u{7}")).traceState == nil)
        #expect(try #require(SpanContext(traceparent: Self.valid, tracestate: String(repeating: "a", count: 513))).traceState == nil)
    }
}
