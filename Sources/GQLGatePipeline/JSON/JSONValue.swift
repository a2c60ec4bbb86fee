import GQLGateCore

/// A JSON value (variables, extensions, payloads) that is `Sendable` and
/// prints itself as compact JSON; objects keep their key order unless asked
/// to sort (canonical form for cache keys).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case integer(Int)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.integer(a), .integer(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// Whether this is a JSON object.
    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// The member `key` of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// Compact JSON text; `sortedKeys` gives a canonical form.
    public func serialized(sortedKeys: Bool = false) -> String {
        var out = ""
        write(to: &out, sortedKeys: sortedKeys)
        return out
    }

    func write(to out: inout String, sortedKeys: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .integer(let value): out += String(value)
        case .number(let value):
            out += value.isFinite ? (value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)) : "null"
        case .string(let value): JSONValue.writeString(value, to: &out)
        case .array(let values):
            out += "["
            for (i, value) in values.enumerated() {
                if i > 0 { out += "," }
                value.write(to: &out, sortedKeys: sortedKeys)
            }
            out += "]"
        case .object(let members):
            out += "{"
            let ordered = sortedKeys ? members.sorted { $0.key < $1.key } : members
            for (i, member) in ordered.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out, sortedKeys: sortedKeys)
            }
            out += "}"
        }
    }

    /// Appends `value` as a JSON string literal, escaped per RFC 8259.
    public static func writeString(_ value: String, to out: inout String) {
        JSONString.append(value, to: &out)
    }
}
