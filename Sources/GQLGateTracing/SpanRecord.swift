public import GQLGateCore

/// A finished span, as exported: OpenTelemetry's span data model, reduced to
/// what gqlgate records (no links).
public struct SpanRecord: Sendable, Equatable {
    /// OpenTelemetry's span kinds (their OTLP numbers).
    public enum Kind: Int, Sendable {
        case `internal` = 1
        case server = 2
        case client = 3
    }

    /// OpenTelemetry's status codes (their OTLP numbers).
    public enum Status: Int, Sendable {
        case unset = 0
        case ok = 1
        case error = 2
    }

    /// Something that happened at one moment of the span (an upstream reconnect, say).
    public struct Event: Sendable, Equatable {
        public var name: String
        public var timeUnixNano: UInt64
        public var attributes: [SpanAttribute]

        public init(name: String, timeUnixNano: UInt64, attributes: [SpanAttribute] = []) {
            self.name = name
            self.timeUnixNano = timeUnixNano
            self.attributes = attributes
        }
    }

    public var context: SpanContext
    /// The parent span's id; 0 for a trace's root.
    public var parentSpanID: UInt64
    public var name: String
    public var kind: Kind
    public var startUnixNano: UInt64
    public var endUnixNano: UInt64
    public var attributes: [SpanAttribute]
    public var events: [Event]
    /// Events left out past a limit, counted only.
    public var droppedEventsCount: Int
    public var status: Status

    public init(context: SpanContext, parentSpanID: UInt64, name: String, kind: Kind, startUnixNano: UInt64, endUnixNano: UInt64,
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
    public subscript(key: String) -> SpanAttribute.Value? {
        attributes.first { $0.key == key }?.value
    }
}

/// One attribute of a span, event or resource.
public struct SpanAttribute: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case bool(Bool)
        case int(Int64)
        case double(Double)
    }

    public var key: String
    public var value: Value

    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    public init(_ key: String, _ text: String) {
        self.init(key, .string(text))
    }

    public init(_ key: String, _ number: Int) {
        self.init(key, .int(Int64(number)))
    }
}
