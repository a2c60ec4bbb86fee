import GQLGateCore
package import Logging

/// Renders a log record as one JSON object and a newline:
/// `{"ts":...,"level":...,"msg":...,<metadata keys in sorted order>}`.
/// Integers, floating-point numbers and booleans given as
/// `.stringConvertible` stay JSON numbers and booleans.
package enum JSONLogLine {
    /// The line for one record.
    package static func render(timestamp: String, level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var out = "{\"ts\":"
        out.reserveCapacity(128 + message.utf8.count)
        JSONString.append(timestamp, to: &out)
        out += ",\"level\":"
        JSONString.append(level.rawValue, to: &out)
        out += ",\"msg\":"
        JSONString.append(message, to: &out)
        for key in metadata.keys.sorted() where key != "ts" && key != "level" && key != "msg" {
            out += ","
            JSONString.append(key, to: &out)
            out += ":"
            append(metadata[key]!, to: &out)
        }
        out += "}\n"
        return out
    }

    private static func append(_ value: Logger.MetadataValue, to out: inout String) {
        switch value {
        case .string(let text):
            JSONString.append(text, to: &out)
        case .stringConvertible(let convertible):
            appendScalar(convertible, to: &out)
        case .dictionary(let dictionary):
            out += "{"
            for (i, key) in dictionary.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                JSONString.append(key, to: &out)
                out += ":"
                append(dictionary[key]!, to: &out)
            }
            out += "}"
        case .array(let array):
            out += "["
            for (i, element) in array.enumerated() {
                if i > 0 { out += "," }
                append(element, to: &out)
            }
            out += "]"
        }
    }

    private static func appendScalar(_ value: any CustomStringConvertible & Sendable, to out: inout String) {
        switch value {
        case let bool as Bool:
            out += bool ? "true" : "false"
        case let integer as any BinaryInteger:
            out += integer.description
        case let double as Double where double.isFinite:
            out += double.description
        default:
            JSONString.append(value.description, to: &out)
        }
    }
}
