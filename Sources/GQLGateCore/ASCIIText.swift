extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    public func trimmingASCIISpaces() -> SubSequence {
        trimming { $0 == " " || $0 == "\t" }
    }

    /// The text without leading and trailing spaces, tabs and line breaks
    /// (a file's contents, say).
    public func trimmingASCIIWhitespace() -> SubSequence {
        trimming { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
    }

    private func trimming(_ isTrimmed: (Character) -> Bool) -> SubSequence {
        var start = startIndex, end = endIndex
        while start < end, isTrimmed(self[start]) { start = index(after: start) }
        while end > start {
            let before = index(before: end)
            guard isTrimmed(self[before]) else { break }
            end = before
        }
        return self[start..<end]
    }
}

/// String literals as JSON writes them (RFC 8259): quotes, backslashes and
/// control characters escaped. With `escapingDelete`, DEL is escaped too,
/// which makes them valid YAML double-quoted scalars as well.
public enum JSONString {
    /// Appends `value` in double quotes to `out`.
    public static func append(_ value: String, to out: inout String, escapingDelete: Bool = false) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (escapingDelete && scalar.value == 0x7F):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `value` in double quotes.
    public static func quoted(_ value: String, escapingDelete: Bool = false) -> String {
        var out = ""
        append(value, to: &out, escapingDelete: escapingDelete)
        return out
    }
}
