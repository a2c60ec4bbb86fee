/// Where a span sits in its trace (W3C Trace Context): the trace, the span,
/// whether the trace is sampled, and the vendors' `tracestate`.
package struct SpanContext: Sendable, Equatable {
    /// The trace id's 16 bytes as two big-endian words.
    package var traceID: TraceID
    /// The span id's 8 bytes, big-endian; never 0.
    package var spanID: UInt64
    /// The `sampled` flag.
    package var sampled: Bool
    /// The `tracestate` field, passed on as received; nil when none came.
    package var traceState: String?

    package init(traceID: TraceID, spanID: UInt64, sampled: Bool, traceState: String? = nil) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
        self.traceState = traceState
    }

    /// A new span of the same trace under this one (an upstream attempt's), with a random non-zero id.
    package func child() -> SpanContext {
        SpanContext(traceID: traceID, spanID: UInt64.random(in: 1...UInt64.max), sampled: sampled, traceState: traceState)
    }

    /// The context a `traceparent` field names (and its `tracestate`), or nil
    /// when the field is not a valid version-00-compatible `traceparent`
    /// (all-zero ids, version `ff`, wrong lengths or non-hex digits).
    package init?(traceparent: String, tracestate: String? = nil) {
        var text = traceparent
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self.init(traceID: parsed.traceID, spanID: parsed.spanID, sampled: parsed.flags & 1 == 1,
                  traceState: tracestate.flatMap(Self.validTraceState))
    }

    /// The `traceparent` value for this context.
    package var traceparent: String {
        String(unsafeUninitializedCapacity: 55) { buffer in
            buffer[0] = 0x30; buffer[1] = 0x30; buffer[2] = 0x2D  // "00-"
            Self.put(traceID.high, into: buffer, at: 3)
            Self.put(traceID.low, into: buffer, at: 19)
            buffer[35] = 0x2D
            Self.put(spanID, into: buffer, at: 36)
            buffer[52] = 0x2D; buffer[53] = 0x30; buffer[54] = sampled ? 0x31 : 0x30  // "-01" or "-00"
            return 55
        }
    }

    /// The span id as 16 lower-case hex digits.
    package var spanIDHex: String { Self.hex(spanID) }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (traceID: TraceID, spanID: UInt64, flags: UInt8)? {
        // version "-" trace-id(32) "-" parent-id(16) "-" flags(2); later versions may append "-..." fields.
        guard bytes.count >= 55, bytes[2] == 0x2D, bytes[35] == 0x2D, bytes[52] == 0x2D,
              let version = hexWord(bytes, 0, 2), version != 0xFF,
              bytes.count == 55 || (version != 0 && bytes[55] == 0x2D),
              let high = hexWord(bytes, 3, 16), let low = hexWord(bytes, 19, 16), high != 0 || low != 0,
              let span = hexWord(bytes, 36, 16), span != 0, let flags = hexWord(bytes, 53, 2)
        else { return nil }
        return (TraceID(high: high, low: low), span, UInt8(flags))
    }

    /// `count` lower-case hex digits at `start` as a number; nil on any other character.
    private static func hexWord(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> UInt64? {
        var value: UInt64 = 0
        for index in start..<(start + count) {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte &- 0x30
            case 0x61...0x66: digit = byte &- 0x61 &+ 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// `tracestate` when it is at most 512 printable ASCII characters (it is passed on, not read).
    private static func validTraceState(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 512, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return text
    }

    static func hex(_ word: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            put(word, into: buffer, at: 0)
            return 16
        }
    }

    /// Writes `word` as 16 lower-case hex digits at `start`.
    static func put(_ word: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        let digits: StaticString = "0123456789abcdef"
        for index in 0..<16 {
            buffer[start + index] = digits.utf8Start[Int((word >> UInt64(60 - 4 * index)) & 0xF)]
        }
    }
}

/// A 16-byte trace id as two big-endian words.
package struct TraceID: Sendable, Hashable {
    package var high: UInt64
    package var low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// 32 lower-case hex digits.
    package var hex: String {
        String(unsafeUninitializedCapacity: 32) { buffer in
            SpanContext.put(high, into: buffer, at: 0)
            SpanContext.put(low, into: buffer, at: 16)
            return 32
        }
    }
}
