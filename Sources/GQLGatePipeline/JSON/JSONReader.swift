/// A strict RFC 8259 reader from UTF-8 bytes to `JSONValue`, or member by
/// member without building anything (`readObject`, `readMembers`,
/// `readElements`, `skipValue`).
///
/// Written here rather than taken from Foundation because request decoding is
/// on every request's path: Foundation's `JSONDecoder` spent ~23,000
/// instructions on a 60-byte GraphQL body (callgrind), this reader a small
/// fraction of that. Nesting deeper than `maximumDepth` is refused, so hostile
/// input cannot exhaust the stack, and every value it builds is that shallow:
/// the recursive walks over `JSONValue` (printing, sorting, equality,
/// `repeatedKey`) are bounded by the same depth.
///
/// Objects keep every member, a repeated key included (lookups find the
/// first); a client's input is checked with `JSONValue.repeatedKey`.
package struct JSONReader {
    /// Deepest nesting of arrays and objects accepted.
    package static let maximumDepth = 512

    let bytes: UnsafeRawBufferPointer
    var position = 0
    private var depth = 0
    /// Where the key of the member being read starts (its opening quote).
    package private(set) var keyOffset = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Reads one JSON value that must span all of `bytes` (whitespace aside).
    package static func read(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> JSONValue {
        var reader = JSONReader(bytes)
        let value = try reader.value()
        try reader.readEnd()
        return value
    }

    /// Reads the JSON text `text`.
    package static func read(_ text: String) throws(Failure) -> JSONValue {
        var text = text
        let result: Result<JSONValue, Failure> = text.withUTF8 { buffer in
            Result { () throws(Failure) in try read(UnsafeRawBufferPointer(buffer)) }
        }
        return try result.get()
    }

    /// Reads `bytes` as one JSON object (whitespace aside) member by member,
    /// building nothing but what `member` reads: `member` gets each key's UTF-8
    /// (escapes resolved) and the reader at the member's value, which it must
    /// read exactly once (`value()`, `stringOrNull()`, `skipValue()`…). Returns
    /// false, having read nothing, when the text does not start with `{`:
    /// `read` then tells invalid JSON from a value of another kind. The keys
    /// are not compared: `member` sees a repeated one again.
    package static func readObject(
        _ bytes: UnsafeRawBufferPointer, member: (UnsafeRawBufferPointer, inout JSONReader) throws(Failure) -> Void
    ) throws(Failure) -> Bool {
        var reader = JSONReader(bytes)
        reader.skipWhitespace()
        guard reader.position < bytes.count, bytes[reader.position] == UInt8(ascii: "{") else { return false }
        try reader.members(member)
        try reader.readEnd()
        return true
    }

    /// Reads the object `bytes` holds (whitespace aside) up to the first
    /// member named `name` (ASCII) and calls `value` with the reader at its
    /// value; what comes after is not read. Nil when `bytes` hold no object
    /// or it has no such member; what is read is checked as `skipValue` does.
    package static func firstMember<Found>(
        named name: StaticString, in bytes: UnsafeRawBufferPointer, _ value: (inout JSONReader) throws(Failure) -> Found
    ) throws(Failure) -> Found? {
        var reader = JSONReader(bytes)
        reader.skipWhitespace()
        guard reader.position < bytes.count, bytes[reader.position] == UInt8(ascii: "{") else { return nil }
        try reader.enter()
        if reader.closesAtOnce(UInt8(ascii: "}")) { return nil }
        let wanted = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        repeat {
            reader.skipWhitespace()
            guard reader.position < bytes.count, bytes[reader.position] == UInt8(ascii: "\"") else { throw reader.failure }
            var found: Found?
            try reader.withKey { key, reader throws(Failure) in
                reader.skipWhitespace()
                guard reader.position < reader.bytes.count, reader.bytes[reader.position] == UInt8(ascii: ":") else { throw reader.failure }
                reader.position += 1
                if Self.sameBytes(key, wanted) { found = try value(&reader) } else { try reader.skipValue() }
            }
            if let found { return found }
        } while try !reader.closesAfterItem(UInt8(ascii: "}"))
        return nil
    }

    /// Whether two byte ranges hold the same bytes, compared in a plain loop
    /// (`elementsEqual` walks two iterators: several times the instructions for a key).
    static func sameBytes(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count where lhs[index] != rhs[index] { return false }
        return true
    }

    private mutating func readEnd() throws(Failure) {
        skipWhitespace()
        guard position == bytes.count else { throw failure }
    }

    // MARK: - Reading piece by piece

    /// The offset of the next byte to read.
    package var offset: Int { position }

    /// What a value starts with.
    package enum Opening: Sendable {
        case object, array, scalar
    }

    /// Skips whitespace and tells what the value here starts with; the
    /// reader is then at its first byte (`offset`).
    package mutating func opening() throws(Failure) -> Opening {
        skipWhitespace()
        guard position < bytes.count else { throw failure }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        default: return .scalar
        }
    }

    /// Reads the object here member by member, as `readObject` does.
    package mutating func readMembers(_ member: (UnsafeRawBufferPointer, inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        guard try opening() == .object else { throw failure }
        try members(member)
    }

    /// Reads the array here, calling `element` with the reader at each
    /// element, which `element` must read exactly once.
    package mutating func readElements(_ element: (inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        guard try opening() == .array else { throw failure }
        try elements(element)
    }

    /// Reads past the value here, checking it as `value()` does but building nothing.
    package mutating func skipValue() throws(Failure) {
        switch try opening() {
        case .object: try members { _, reader throws(Failure) in try reader.skipValue() }
        case .array: try elements { reader throws(Failure) in try reader.skipValue() }
        case .scalar: try skipScalar()
        }
    }

    // MARK: - Values

    /// Reads the value here, whatever its kind.
    package mutating func value() throws(Failure) -> JSONValue {
        switch try opening() {
        case .object: return try object()
        case .array: return try array()
        case .scalar: return try scalar()
        }
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
        var elements: [JSONValue] = []
        try self.elements { reader throws(Failure) in elements.append(try reader.value()) }
        return .array(elements)
    }

    // MARK: - Containers

    /// Reads the object here (at its `{`), calling `member` with each key's
    /// UTF-8 and the reader at the member's value, which `member` reads.
    private mutating func members(_ member: (UnsafeRawBufferPointer, inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        try enter()
        if closesAtOnce(UInt8(ascii: "}")) { return }
        repeat {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure }
            keyOffset = position
            try withKey { key, reader throws(Failure) in
                reader.skipWhitespace()
                guard reader.position < reader.bytes.count, reader.bytes[reader.position] == UInt8(ascii: ":") else { throw reader.failure }
                reader.position += 1
                try member(key, &reader)
            }
        } while try !closesAfterItem(UInt8(ascii: "}"))
    }

    /// Reads the array here (at its `[`), calling `element` with the reader at each element.
    private mutating func elements(_ element: (inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        try enter()
        if closesAtOnce(UInt8(ascii: "]")) { return }
        repeat {
            try element(&self)
        } while try !closesAfterItem(UInt8(ascii: "]"))
    }

    /// Past an opening bracket, one level deeper: refused past `maximumDepth`.
    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw Failure(offset: position, problem: .tooDeep) }
        position += 1
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

    var failure: Failure { Failure(offset: position) }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }
}
