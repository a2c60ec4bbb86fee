extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    package func trimmingASCIISpaces() -> SubSequence {
        trimming(\.isASCIISpace)
    }

    /// The text without leading and trailing spaces, tabs and line breaks
    /// (a file's contents, say).
    package func trimmingASCIIWhitespace() -> SubSequence {
        trimming { $0.isASCIISpace || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
    }

    /// Whether `needle` (lower-case ASCII) occurs in the text, ASCII letters compared without case.
    package func containsIgnoringASCIICase(_ needle: String) -> Bool {
        String(self).containsIgnoringASCIICase(needle)  // a String's own bytes; a substring is copied
    }

    fileprivate static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, containIgnoringCase pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = pattern.first else { return true }
        guard bytes.count >= pattern.count else { return false }
        for start in 0...(bytes.count - pattern.count) where bytes[start].asciiLowercased == first {
            var index = 1
            while index < pattern.count, bytes[start + index].asciiLowercased == pattern[index] { index += 1 }
            if index == pattern.count { return true }
        }
        return false
    }


    /// Trims by bytes, not characters: every byte trimmed is ASCII, so each
    /// cut falls on a scalar boundary, and no grapheme breaking is needed.
    private func trimming(_ isTrimmed: (UInt8) -> Bool) -> SubSequence {
        let bytes = Substring(self).utf8  // String's and Substring's, both bidirectional; the same indices
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, isTrimmed(bytes[start]) { bytes.formIndex(after: &start) }
        while end > start {
            let before = bytes.index(before: end)
            guard isTrimmed(bytes[before]) else { break }
            end = before
        }
        return self[start..<end]
    }
}

/// String literals as JSON writes them (RFC 8259): quotes, backslashes and
/// control characters escaped. With `escapingDelete`, DEL is escaped too, as a
/// YAML double-quoted scalar needs (it also needs the C1 controls, U+FFFE,
/// U+FFFF and the Unicode line breaks escaped, which the config's quoting adds).
package enum JSONString {
    /// Appends `value` in double quotes to `out`. A value with nothing to
    /// escape (the usual case) is appended whole, without a byte-by-byte copy.
    package static func append(_ value: String, to out: inout String, escapingDelete: Bool = false) {
        var value = value
        if value.withUTF8({ isPlain($0, escapingDelete: escapingDelete) }) {
            out += "\""
            out += value
            out += "\""
        } else {
            var escaped: [UInt8] = []
            append(value, to: &escaped, escapingDelete: escapingDelete)
            out += String(decoding: escaped, as: UTF8.self)
        }
    }

    /// Appends `value` in double quotes to `out` as UTF-8. Runs of bytes that
    /// need no escape are copied whole (the escaped characters are all ASCII,
    /// so every cut falls on a character boundary).
    package static func append(_ value: String, to out: inout [UInt8], escapingDelete: Bool = false) {
        var value = value
        out.append(UInt8(ascii: "\""))
        value.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices where needsEscape(bytes[index], escapingDelete: escapingDelete) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscape(for: bytes[index], to: &out)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `bytes` need no escape: in quotes, they are a JSON string as they are.
    package static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>, escapingDelete: Bool = false) -> Bool {
        !bytes.contains { needsEscape($0, escapingDelete: escapingDelete) }
    }

    private static func needsEscape(_ byte: UInt8, escapingDelete: Bool) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C || (escapingDelete && byte == 0x7F)
    }

    private static func appendEscape(for byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case 0x22: out += "\\\"".utf8
        case 0x5C: out += "\\\\".utf8
        case 0x0A: out += "\\n".utf8
        case 0x0D: out += "\\r".utf8
        case 0x09: out += "\\t".utf8
        default:
            out += "\\u00".utf8
            out.append(hexDigit(byte >> 4))
            out.append(hexDigit(byte & 0x0F))
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// `value` in double quotes.
    package static func quoted(_ value: String, escapingDelete: Bool = false) -> String {
        var out = ""
        append(value, to: &out, escapingDelete: escapingDelete)
        return out
    }
}

extension String {
    /// Whether `needle` (lower-case ASCII) occurs in the string, ASCII letters
    /// compared without case; searched in the string's own bytes.
    package func containsIgnoringASCIICase(_ needle: String) -> Bool {
        // Both strings read in place (`withUTF8` needs a `var`: a copy, and a retain and a release).
        let count = utf8.count, patternCount = needle.utf8.count
        return withCString { text in
            needle.withCString { pattern in
                // CChar and UInt8 differ only in sign: the same memory may be read as either.
                Self.bytes(UnsafeRawBufferPointer(start: text, count: count).assumingMemoryBound(to: UInt8.self),
                           containIgnoringCase: UnsafeRawBufferPointer(start: pattern, count: patternCount).assumingMemoryBound(to: UInt8.self))
            }
        }
    }
}

extension UInt8 {
    /// The byte with an ASCII capital letter made lower case.
    @inlinable
    package var asciiLowercased: UInt8 {
        self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") ? self | 0x20 : self
    }

    /// Whether the byte is a space or a tab.
    @inlinable
    package var isASCIISpace: Bool {
        self == UInt8(ascii: " ") || self == UInt8(ascii: "\t")
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// `range` without leading and trailing spaces and tabs.
    package func trimmingASCIISpaces(_ range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound, end = range.upperBound
        while start < end, self[start].isASCIISpace { start += 1 }
        while end > start, self[end - 1].isASCIISpace { end -= 1 }
        return start..<end
    }

    /// Whether the bytes in `range` are `lowercase` (ASCII letters compared without case).
    package func equalsIgnoringASCIICase(_ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for offset in 0..<range.count where self[range.lowerBound + offset].asciiLowercased != expected[offset] { return false }
        return true
    }
}
