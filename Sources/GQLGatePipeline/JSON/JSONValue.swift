import GQLGateCore

/// A JSON value (variables, extensions, payloads) that is `Sendable` and
/// prints itself as compact JSON; objects keep their key order unless asked
/// to sort (canonical form for cache keys), and numbers their text.
///
/// Values read by `JSONReader` nest at most `JSONReader.maximumDepth`
/// levels, which bounds the recursion of every walk here.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number other than an `Int`, as its JSON text, exactly as read
    /// (`5.0`, `-0`, `1E+3`, `1e400`, `12345678901234567890`): printed as is,
    /// so no digit or form is lost. Make one from a `Double` with `init(_:)`.
    case number(String)
    /// An integer in `Int`'s range, read from text that prints back the same.
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

    /// `value` as a JSON number (`String(value)`, e.g. `2.5`, `1e+300`);
    /// null when it is not finite, which JSON cannot write.
    public init(_ value: Double) {
        self = value.isFinite ? .number(String(value)) : .null
    }

    /// The number's value, for `.integer` and `.number` (rounded to the
    /// nearest `Double`, ±infinity past its range); nil for other kinds.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let text): Double(text)
        default: nil
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
        case .number(let text): out += text
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
    package static func writeString(_ value: String, to out: inout String) {
        JSONString.append(value, to: &out)
    }
}
