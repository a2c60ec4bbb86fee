/// How a log record becomes a line.
package enum LogLineFormat: UInt8, Sendable {
    /// One JSON object a line: `ts`, `level`, `msg`, then the metadata fields.
    case json
    /// `TIMESTAMP LEVEL message key=value ...`, for people reading a terminal.
    case text
}
