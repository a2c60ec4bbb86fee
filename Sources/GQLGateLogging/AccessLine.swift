import GQLGateCore
package import Logging

/// One access-log record: what is known of an answered request. Fields that
/// are not known stay `nil` and are left out of the line.
package struct AccessLine: Sendable, Equatable {
    package var attempts: Int?
    package var cache: String?
    /// The subject of the client's TLS certificate, when the server asks for one (`client_cert`).
    package var clientCertificate: String?
    /// The operation's estimated cost (`demand_control`), as a JSON number.
    package var cost: String?
    package var durationMilliseconds: Double
    package var operation: String?
    package var operationName: String?
    /// The persisted document's id, when the client asked for one by id.
    package var persistedID: String?
    package var requestID: String?
    /// Why traffic protection refused the request (`rate_limited`, `overloaded`, `circuit_open`).
    package var shed: String?
    /// The request's span id (16 hex digits), when tracing sampled it.
    package var spanID: String?
    package var status: Int
    /// The request's trace id (32 hex digits), when tracing sampled it.
    package var traceID: String?
    package var upstreamStatus: Int?

    package init(status: Int, durationMilliseconds: Double) {
        self.status = status
        self.durationMilliseconds = durationMilliseconds
    }

    /// The record's message.
    package static let message = "request"

    /// The fields as swift-log metadata (for a logger other than gqlgate's own).
    package var metadata: Logger.Metadata {
        var fields: Logger.Metadata = ["status": .stringConvertible(status), "duration_ms": .stringConvertible(durationMilliseconds)]
        if let attempts { fields["attempts"] = .stringConvertible(attempts) }
        if let cache { fields["cache"] = .string(cache) }
        if let clientCertificate { fields["client_cert"] = .string(clientCertificate) }
        if let cost { fields["cost"] = .string(cost) }
        if let operation { fields["operation"] = .string(operation) }
        if let operationName { fields["operation_name"] = .string(operationName) }
        if let persistedID { fields["persisted_id"] = .string(persistedID) }
        if let requestID { fields["request_id"] = .string(requestID) }
        if let shed { fields["shed"] = .string(shed) }
        if let spanID { fields["span_id"] = .string(spanID) }
        if let traceID { fields["trace_id"] = .string(traceID) }
        if let upstreamStatus { fields["upstream_status"] = .stringConvertible(upstreamStatus) }
        return fields
    }

    /// The fields in the order every line shows metadata (sorted by key), as
    /// (key, value, whether the value is a JSON string).
    func orderedFields(_ visit: (String, String, Bool) -> Void) {
        if let attempts { visit("attempts", String(attempts), false) }
        if let cache { visit("cache", cache, true) }
        if let clientCertificate { visit("client_cert", clientCertificate, true) }
        if let cost { visit("cost", cost, false) }
        visit("duration_ms", durationMilliseconds.description, false)
        if let operation { visit("operation", operation, true) }
        if let operationName { visit("operation_name", operationName, true) }
        if let persistedID { visit("persisted_id", persistedID, true) }
        if let requestID { visit("request_id", requestID, true) }
        if let shed { visit("shed", shed, true) }
        if let spanID { visit("span_id", spanID, true) }
        visit("status", String(status), false)
        if let traceID { visit("trace_id", traceID, true) }
        if let upstreamStatus { visit("upstream_status", String(upstreamStatus), false) }
    }
}

/// Writes access lines straight to a `LogLineWriter`, in the format and at
/// the level of the shared `LogSettings`: the same line a `GatewayLogHandler`
/// writes for `logger.info("request", metadata: line.metadata)`, without a
/// metadata dictionary, a merge and a sort per request.
package struct AccessLogWriter: Sendable {
    private let settings: LogSettings
    private let writer: LogLineWriter
    private let clock: @Sendable () -> String

    package init(settings: LogSettings, writer: LogLineWriter, clock: @escaping @Sendable () -> String = LogTimestamp.now) {
        self.settings = settings
        self.writer = writer
        self.clock = clock
    }

    /// Whether `write` writes: the level lets `info` lines through (it can
    /// change on a reload). Lets a caller skip building a line nobody reads.
    package var isEnabled: Bool { settings.logLevel <= .info }

    /// Writes `line` at `info`, unless the level is above it.
    package func write(_ line: AccessLine) {
        guard isEnabled else { return }
        writer.write(render(line, format: settings.lineFormat, timestamp: clock()))
    }

    func render(_ line: AccessLine, format: LogLineFormat, timestamp: String) -> String {
        switch format {
        case .json:
            // Built as bytes: this runs for every request, and the same line
            // built by String appends took about twice the instructions.
            var out: [UInt8] = []
            out.reserveCapacity(256)
            out += #"{"ts":"#.utf8
            JSONString.append(timestamp, to: &out)
            out += #","level":"info","msg":"request""#.utf8
            line.orderedFields { key, value, isString in
                out += #",""#.utf8
                out += key.utf8
                out += #"":"#.utf8
                if isString { JSONString.append(value, to: &out) } else { out += value.utf8 }
            }
            out += "}\n".utf8
            return String(decoding: out, as: UTF8.self)
        case .text:
            var out = timestamp
            out += " info request"
            line.orderedFields { key, value, _ in
                out += " "
                out += key
                out += "="
                TextLogLine.appendValue(value, to: &out)
            }
            out += "\n"
            return out
        }
    }
}
