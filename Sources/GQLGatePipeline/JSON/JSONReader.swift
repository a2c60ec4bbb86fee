/// A strict RFC 8259 reader from UTF-8 bytes to `JSONValue`.
///
/// Written here rather than taken from Foundation because request decoding is
/// on every request's path: Foundation's `JSONDecoder` spent ~23,000
/// instructions on a 60-byte GraphQL body (callgrind), this reader a small
/// fraction of that. Nesting is limited so hostile input cannot exhaust the stack.
public struct JSONReader {
    /// Why the bytes are not a JSON text.
    public struct Failure: Error, Equatable {
        /// Byte offset where reading stopped.
        public let offset: Int
    }

    /// Deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 256

    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    private var depth = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Reads one JSON value that must span all of `bytes` (whitespace aside).
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> JSONValue {
        var reader = JSONReader(bytes)
        let value = try reader.value()
        reader.skipWhitespace()
        guard reader.position == bytes.count else { throw reader.failure }
        return value
    }

    /// Reads the JSON text `text`.
    public static func read(_ text: String) throws(Failure) -> JSONValue {
        var text = text
        let result: Result<JSONValue, Failure> = text.withUTF8 { buffer in
            Result { () throws(Failure) in try read(UnsafeRawBufferPointer(buffer)) }
        }
        return try result.get()
    }

    /// Reads `bytes` as one JSON object (whitespace aside) member by member,
    /// building nothing but what `member` reads: `member` gets each key's UTF-8
    /// (escapes resolved) and the reader at the member's value, which it must
    /// read exactly once (`value()` or `stringOrNull()`). Returns false, having
    /// read nothing, when the text does not start with `{`: `read` then tells
    /// invalid JSON from a value of another kind.
    public static func readObject(
        _ bytes: UnsafeRawBufferPointer, member: (UnsafeRawBufferPointer, inout JSONReader) throws(Failure) -> Void
    ) throws(Failure) -> Bool {
        var reader = JSONReader(bytes)
        reader.skipWhitespace()
        guard reader.position < bytes.count, bytes[reader.position] == UInt8(ascii: "{") else { return false }
        try reader.members(member)
        reader.skipWhitespace()
        guard reader.position == bytes.count else { throw reader.failure }
        return true
    }

    /// Reads the object here (at its `{`), calling `member` with each key's
    /// UTF-8 and the reader at the member's value, which `member` reads.
    private mutating func members(_ member: (UnsafeRawBufferPointer, inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        try enter()
        if closesAtOnce(UInt8(ascii: "}")) { return }
        repeat {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure }
            try withKey { key, reader throws(Failure) in
                reader.skipWhitespace()
                guard reader.position < reader.bytes.count, reader.bytes[reader.position] == UInt8(ascii: ":") else { throw reader.failure }
                reader.position += 1
                try member(key, &reader)
            }
        } while try !closesAfterItem(UInt8(ascii: "}"))
    }

    /// Right after an opening bracket: whether `closing` follows at once
    /// (an empty object or array, then read past).
    private mutating func closesAtOnce(_ closing: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == closing else { return false }
        position += 1
        depth -= 1
        return true
    }

    /// After a member or an element: false past a `,` (another one follows),
    /// true past `closing`; anything else is invalid.
    private mutating func closesAfterItem(_ closing: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw failure }
        if bytes[position] == UInt8(ascii: ",") {
            position += 1
            return false
        }
        guard bytes[position] == closing else { throw failure }
        position += 1
        depth -= 1
        return true
    }

    /// Reads the value here if it is a string or null: `.some(text)` or
    /// `.some(nil)`. Any other value is read past, and the result is nil.
    public mutating func stringOrNull() throws(Failure) -> String?? {
        skipWhitespace()
        guard position < bytes.count else { throw failure }
        switch bytes[position] {
        case UInt8(ascii: "\""): return .some(try string())
        case UInt8(ascii: "n"): try literal("null"); return .some(nil)
        default: _ = try value(); return nil
        }
    }

    /// Reads the key string here and calls `body` with its UTF-8: in place when
    /// it is ASCII without escapes (no `String` made), else decoded.
    private mutating func withKey(_ body: (UnsafeRawBufferPointer, inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        let start = position + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                position = end + 1
                try body(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), &self)
                return
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { break }
            end += 1
        }
        var key = try string()
        let result: Result<Void, Failure> = key.withUTF8 { utf8 in
            Result { () throws(Failure) in try body(UnsafeRawBufferPointer(utf8), &self) }
        }
        try result.get()
    }

    private var failure: Failure { Failure(offset: position) }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Reads the value here, whatever its kind.
    public mutating func value() throws(Failure) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw failure }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw failure }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] { throw failure }
        position += count
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure }
        position += 1
    }

    private mutating func object() throws(Failure) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        // Room for a GraphQL request's members, so a small object grows no buffer.
        members.reserveCapacity(4)
        try self.members { key, reader throws(Failure) in
            members.append((String(decoding: key, as: UTF8.self), try reader.value()))
        }
        return .object(members)
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        if closesAtOnce(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            elements.append(try value())
        } while try !closesAfterItem(UInt8(ascii: "]"))
        return .array(elements)
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = position
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
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isInteger, let integer = Int(text) { return .integer(integer) }
        guard let double = Double(text) else { throw Failure(offset: start) }
        return .number(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    private mutating func string() throws(Failure) -> String {
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

    private func validUTF8(_ range: Range<Int>) throws(Failure) -> String {
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw Failure(offset: range.lowerBound)
        }
        return text
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
                position += 1
                guard position < bytes.count else { throw failure }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): result += "\""
                case UInt8(ascii: "\\"): result += "\\"
                case UInt8(ascii: "/"): result += "/"
                case UInt8(ascii: "b"): result += "\u{08}"
                case UInt8(ascii: "f"): result += "\u{0C}"
                case UInt8(ascii: "n"): result += "\n"
                case UInt8(ascii: "r"): result += "\r"
                case UInt8(ascii: "t"): result += "\t"
                case UInt8(ascii: "u"): result.unicodeScalars.append(try unicodeEscape())
                default: throw failure
                }
                chunkStart = position
            default:
                guard byte >= 0x20 else { throw failure }
                position += 1
            }
        }
        throw failure
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
