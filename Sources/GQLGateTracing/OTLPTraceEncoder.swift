import GQLGateCore

/// Encodes spans as an OTLP `ExportTraceServiceRequest`
/// (opentelemetry/proto/collector/trace/v1/trace_service.proto), the body of
/// an OTLP/HTTP export with `Content-Type: application/x-protobuf`. Field
/// numbers are the official definitions'; the integration tests decode the
/// bytes with the `opentelemetry-proto` package.
package struct OTLPTraceEncoder: Sendable {
    private let resource: [SpanAttribute]
    private let scopeName: String
    private let scopeVersion: String

    /// - Parameters:
    ///   - resource: the resource's attributes (`service.name`, ...).
    ///   - scopeName, scopeVersion: the instrumentation scope.
    package init(resource: [SpanAttribute], scopeName: String, scopeVersion: String) {
        self.resource = resource
        self.scopeName = scopeName
        self.scopeVersion = scopeVersion
    }

    /// The request carrying `spans`.
    package func encode(_ spans: some Sequence<SpanRecord>) -> [UInt8] {
        var request = ProtobufWriter(capacity: 256 + 384 * spans.underestimatedCount)  // a span with its attributes: 200 to 400 bytes
        request.messageField(1) { resourceSpans in  // ExportTraceServiceRequest.resource_spans
            resourceSpans.messageField(1) { resource in  // ResourceSpans.resource
                for attribute in self.resource { resource.messageField(1) { Self.write(attribute, into: &$0) } }
            }
            resourceSpans.messageField(2) { scopeSpans in  // ResourceSpans.scope_spans
                scopeSpans.messageField(1) { scope in  // ScopeSpans.scope
                    scope.stringField(1, scopeName)
                    scope.stringField(2, scopeVersion)
                }
                for span in spans { scopeSpans.messageField(2) { Self.write(span, into: &$0) } }  // ScopeSpans.spans
            }
        }
        return request.bytes
    }

    private static func write(_ span: SpanRecord, into message: inout ProtobufWriter) {
        message.bigEndianField(1, span.context.traceID.high, span.context.traceID.low)
        message.bigEndianField(2, span.context.spanID)
        if let state = span.context.traceState { message.stringField(3, state) }
        if span.parentSpanID != 0 { message.bigEndianField(4, span.parentSpanID) }
        message.stringField(5, span.name)
        message.varintField(6, UInt64(span.kind.rawValue))
        message.fixed64Field(7, span.startUnixNano)
        message.fixed64Field(8, span.endUnixNano)
        for attribute in span.attributes { message.messageField(9) { write(attribute, into: &$0) } }
        for event in span.events {
            message.messageField(11) { encoded in  // Span.events
                encoded.fixed64Field(1, event.timeUnixNano)
                encoded.stringField(2, event.name)
                for attribute in event.attributes { encoded.messageField(3) { write(attribute, into: &$0) } }
            }
        }
        message.varintField(12, UInt64(span.droppedEventsCount))  // Span.dropped_events_count
        if span.status != .unset {
            message.messageField(15) { $0.varintField(3, UInt64(span.status.rawValue)) }  // Span.status.code
        }
    }

    /// A `KeyValue` with its `AnyValue`.
    private static func write(_ attribute: SpanAttribute, into message: inout ProtobufWriter) {
        message.stringField(1, attribute.key)
        message.messageField(2) { value in
            switch attribute.value {
            case .string(let text): value.oneofStringField(1, text)
            case .bool(let flag): value.oneofVarintField(2, flag ? 1 : 0)
            case .int(let number): value.oneofVarintField(3, UInt64(bitPattern: number))
            case .double(let number): value.doubleField(4, number)
            }
        }
    }
}
