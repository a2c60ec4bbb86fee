package import GQLGateCore

/// A finished span, as exported: OpenTelemetry's span data model, reduced to
/// what gqlgate records (no links).
package struct SpanRecord: Sendable, Equatable {
    /// OpenTelemetry's span kinds (their OTLP numbers).
    package enum Kind: Int, Sendable {
        case `internal` = 1
        case server = 2
        case client = 3
    }

    /// OpenTelemetry's status codes (their OTLP numbers).
    package enum Status: Int, Sendable {
        case unset = 0
        case ok = 1
        case error = 2
    }

    /// Something that happened at one moment of the span (an upstream reconnect, say).
    package struct Event: Sendable, Equatable {
        package var name: String
        package var timeUnixNano: UInt64
        package var attributes: [SpanAttribute]

        package init(name: String, timeUnixNano: UInt64, attributes: [SpanAttribute] = []) {
            self.name = name
            self.timeUnixNano = timeUnixNano
            self.attributes = attributes
        }
    }

    package var context: SpanContext
    /// The parent span's id; 0 for a trace's root.
    package var parentSpanID: UInt64
    package var name: String
    package var kind: Kind
    package var startUnixNano: UInt64
    package var endUnixNano: UInt64
    package var attributes: [SpanAttribute]
    package var events: [Event]
    /// Events left out past a limit, counted only.
    package var droppedEventsCount: Int
    package var status: Status

    package init(context: SpanContext, parentSpanID: UInt64, name: String, kind: Kind, startUnixNano: UInt64, endUnixNano: UInt64,
                attributes: [SpanAttribute] = [], events: [Event] = [], droppedEventsCount: Int = 0, status: Status = .unset) {
        self.context = context
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.startUnixNano = startUnixNano
        self.endUnixNano = endUnixNano
        self.attributes = attributes
        self.events = events
        self.droppedEventsCount = droppedEventsCount
        self.status = status
    }

    /// The value of attribute `key`, if set.
    package subscript(key: String) -> SpanAttribute.Value? {
        attributes.first { $0.key == key }?.value
    }
}

/// One attribute of a span, event or resource.
package struct SpanAttribute: Sendable, Equatable {
    package enum Value: Sendable, Equatable {
        case string(String)
        case bool(Bool)
        case int(Int64)
        case double(Double)
    }

    package var key: String
    package var value: Value

    package init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    package init(_ key: String, _ text: String) {
        self.init(key, .string(text))
    }

    package init(_ key: String, _ number: Int) {
        self.init(key, .int(Int64(number)))
    }
}
