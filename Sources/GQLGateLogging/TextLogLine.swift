import GQLGateCore
package import Logging

/// Renders a log record for people reading a terminal:
/// `2025-06-01T12:34:56.789Z info request status=200 duration_ms=1.2`,
/// metadata keys in sorted order, values with spaces or quotes in JSON quotes.
package enum TextLogLine {
    /// The line for one record.
    package static func render(timestamp: String, level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var out = timestamp
        out.reserveCapacity(96 + message.utf8.count)
        out += " "
        out += level.rawValue
        out += " "
        out += message
        for key in metadata.keys.sorted() {
            out += " "
            out += key
            out += "="
            appendValue(metadata[key]!.description, to: &out)
        }
        out += "\n"
        return out
    }

    /// A value as it stands after `key=`: as is, or JSON-quoted when empty or
    /// holding a space, a quote, `=` or a line break.
    static func appendValue(_ text: String, to out: inout String) {
        if text.isEmpty || text.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }) {
            JSONString.append(text, to: &out)
        } else {
            out += text
        }
    }
}
