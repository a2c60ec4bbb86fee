extension JSONReader {
    /// Reads the value here if it is a string or null: `.some(text)` or
    /// `.some(nil)`. Any other value is read past, and the result is nil.
    package mutating func stringOrNull() throws(Failure) -> String?? {
        skipWhitespace()
        guard position < bytes.count else { throw failure }
        switch bytes[position] {
        case UInt8(ascii: "\""): return .some(try string())
        case UInt8(ascii: "n"): try literal("null"); return .some(nil)
        default: try skipValue(); return nil
        }
    }

    /// Reads the string, literal or number here (after `opening()`).
    mutating func scalar() throws(Failure) -> JSONValue {
        switch bytes[position] {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    /// Reads past the string, literal or number here, checking it as `scalar()` does.
    mutating func skipScalar() throws(Failure) {
        switch bytes[position] {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try skipNumber()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw failure }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] { throw failure }
        position += count
    }

    // MARK: - Numbers

    /// An integer that fits `Int` and is written as `String(integer)` writes
    /// it (so not `-0`) becomes `.integer`; any other number keeps its text.
    private mutating func number() throws(Failure) -> JSONValue {
        let start = position
        let isInteger = try skipNumber()
        if isInteger, let integer = integer(start..<position) { return .integer(integer) }
        return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self))
    }

    /// Reads past the number here (RFC 8259 grammar); whether it has neither
    /// fraction nor exponent.
    private mutating func skipNumber() throws(Failure) -> Bool {
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw failure }
        if bytes[position] == UInt8(ascii: "0") { position += 1 } else { skipDigits() }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure }
            skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure }
            skipDigits()
        }
        return isInteger
    }

    /// The integer written in `range` (`-?digits`), nil past `Int`'s range or for `-0`.
    private func integer(_ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        var value = 0
        while index < range.upperBound {
            let digit = Int(bytes[index] &- 0x30)
            let (tens, overflow) = value.multipliedReportingOverflow(by: 10)
            // Negative numbers are summed negatively, so `Int.min` fits.
            let (next, carry) = isNegative ? tens.subtractingReportingOverflow(digit) : tens.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            value = next
            index += 1
        }
        return isNegative && value == 0 ? nil : value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    // MARK: - Strings

    mutating func string() throws(Failure) -> String {
        position += 1
        let start = position
        var bytesOr: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                defer { position += 1 }
                // ASCII needs no validation, and String(validating:) costs more than the copy.
                if bytesOr < 0x80 { return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self) }
                return try validUTF8(start..<position)
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(prefix: start..<position) }
            guard byte >= 0x20 else { throw failure }
            bytesOr |= byte
            position += 1
        }
        throw failure
    }

    /// Reads past the string here, checking it as `string()` does but making none.
    private mutating func skipString() throws(Failure) {
        position += 1
        var chunkStart = position
        var bytesOr: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                if bytesOr >= 0x80 { try checkUTF8(chunkStart..<position) }
                position += 1
                return
            case UInt8(ascii: "\\"):
                if bytesOr >= 0x80 { try checkUTF8(chunkStart..<position) }
                bytesOr = 0
                _ = try escape()
                chunkStart = position
            default:
                guard byte >= 0x20 else { throw failure }
                bytesOr |= byte
                position += 1
            }
        }
        throw failure
    }

    private func validUTF8(_ range: Range<Int>) throws(Failure) -> String {
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw Failure(offset: range.lowerBound)
        }
        return text
    }

    /// Checks that `range` is valid UTF-8 without making a `String`.
    private func checkUTF8(_ range: Range<Int>) throws(Failure) {
        var iterator = UnsafeRawBufferPointer(rebasing: bytes[range]).makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return
            case .error: throw Failure(offset: range.lowerBound)
            }
        }
    }

    private mutating func escapedString(prefix: Range<Int>) throws(Failure) -> String {
        var result = try validUTF8(prefix)
        var chunkStart = position
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                result += try validUTF8(chunkStart..<position)
                position += 1
                return result
            case UInt8(ascii: "\\"):
                result += try validUTF8(chunkStart..<position)
                result.unicodeScalars.append(try escape())
                chunkStart = position
            default:
                guard byte >= 0x20 else { throw failure }
                position += 1
            }
        }
        throw failure
    }

    /// Reads the escape sequence here (at its `\`): the character it stands for.
    private mutating func escape() throws(Failure) -> Unicode.Scalar {
        position += 1
        guard position < bytes.count else { throw failure }
        let escape = bytes[position]
        position += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(escape)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): return try unicodeEscape()
        default: throw failure
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw failure
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
        let high = try hex4()
        if (0xD800...0xDBFF).contains(high) {
            guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                throw failure
            }
            position += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low), let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                throw failure
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else { throw failure }
        return scalar
    }
}
