/// A place in a client's GraphQL text, as a GraphQL error's `locations`
/// name it: line and column, both from 1. Lines end at LF, CR LF or a lone
/// CR (the spec's LineTerminator); columns count Unicode scalars (the
/// spec's SourceCharacter), so text before the place in any script moves it
/// by one column a character.
package struct DocumentLocation: Sendable, Equatable, CustomStringConvertible {
    package let line: Int
    package let column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The place of the byte at UTF-8 offset `offset` of `text`; an offset
    /// at or past the end is the place right after the last character.
    package init(utf8Offset offset: Int, in text: String) {
        var line = 1, column = 1
        var previous: UInt8 = 0
        for byte in text.utf8.prefix(max(0, offset)) {
            if byte == UInt8(ascii: "\n") {
                if previous != UInt8(ascii: "\r") { line += 1 }
                column = 1
            } else if byte == UInt8(ascii: "\r") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // not a continuation byte: a scalar starts
                column += 1
            }
            previous = byte
        }
        self.init(line: line, column: column)
    }

    /// `{"line":…,"column":…}`
    package var json: JSONValue {
        .object([("line", .number(String(line))), ("column", .number(String(column)))])
    }

    package var description: String { "\(line):\(column)" }
}
