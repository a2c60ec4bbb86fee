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

    /// Whether `needle` (lower-case ASCII) occurs in the text, ASCII letters compared without case.
    public func containsIgnoringASCIICase(_ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard let first = pattern.first else { return true }
        let bytes = Array(utf8)
        guard bytes.count >= pattern.count else { return false }
        for start in 0...(bytes.count - pattern.count) where Self.lowered(bytes[start]) == first {
            var index = 1
            while index < pattern.count, Self.lowered(bytes[start + index]) == pattern[index] { index += 1 }
            if index == pattern.count { return true }
        }
        return false
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
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
    /// Appends `value` in double quotes to `out`. Runs of bytes that need no
    /// escape are appended whole (the escaped characters are all ASCII, so
    /// every cut falls on a character boundary).
    public static func append(_ value: String, to out: inout String, escapingDelete: Bool = false) {
        out += "\""
        let utf8 = value.utf8
        var runStart = utf8.startIndex
        var index = runStart
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || (escapingDelete && byte == 0x7F) {
                out += value[runStart..<index]
                appendEscape(for: byte, to: &out)
                index = utf8.index(after: index)
                runStart = index
            } else {
                index = utf8.index(after: index)
            }
        }
        out += value[runStart..<utf8.endIndex]
        out += "\""
    }

    private static func appendEscape(for byte: UInt8, to out: inout String) {
        switch byte {
        case 0x22: out += "\\\""
        case 0x5C: out += "\\\\"
        case 0x0A: out += "\\n"
        case 0x0D: out += "\\r"
        case 0x09: out += "\\t"
        default:
            let hex = String(byte, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }

    /// `value` in double quotes.
    public static func quoted(_ value: String, escapingDelete: Bool = false) -> String {
        var out = ""
        append(value, to: &out, escapingDelete: escapingDelete)
        return out
    }
}
