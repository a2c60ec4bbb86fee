/// The tokens of a GraphQL document text, read in one pass over its UTF-8
/// bytes without recursion or allocation: each `next()` gives the byte range
/// of one token (punctuator, `...`, name, number, string or block string),
/// skipping what GraphQL ignores (whitespace, commas, comments, a byte order
/// mark). For a valid document the tokens are the GraphQL lexer's; an
/// invalid one is split somehow, and its parse fails later.
///
/// GraphQLSwift's lexer is internal to that package, so the gateway's
/// per-document passes (nesting, canonical form) read tokens here.
struct DocumentTokenizer {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    /// False when the last token is a string or block string the text ends inside.
    private(set) var lastTokenTerminated = true

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The next token's bytes; nil at the end of the text.
    mutating func next() -> Range<Int>? {
        skipIgnored()
        guard position < bytes.count else { return nil }
        let start = position
        lastTokenTerminated = true
        switch bytes[start] {
        case UInt8(ascii: "\""):
            if byte(at: start + 1) == UInt8(ascii: "\""), byte(at: start + 2) == UInt8(ascii: "\"") {
                skipBlockString()
            } else {
                skipString()
            }
        case UInt8(ascii: "."):
            position += byte(at: start + 1) == UInt8(ascii: ".") && byte(at: start + 2) == UInt8(ascii: ".") ? 3 : 1
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            skipNumber()
        case let first where Self.isNameStart(first):
            position += 1
            while let next = byte(at: position), Self.isNameStart(next) || Self.isDigit(next) { position += 1 }
        default:
            position += 1  // a punctuator, or a byte no token starts with
        }
        return start..<position
    }

    private func byte(at index: Int) -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipIgnored() {
        while let current = byte(at: position) {
            switch current {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "#"):
                while let next = byte(at: position), next != UInt8(ascii: "\n"), next != UInt8(ascii: "\r") { position += 1 }
            case 0xEF where byte(at: position + 1) == 0xBB && byte(at: position + 2) == 0xBF:
                position += 3
            default:
                return
            }
        }
    }

    /// `"…"`: a backslash escapes the next byte; a line end or the text's end stops an unterminated one.
    private mutating func skipString() {
        position += 1
        while let current = byte(at: position) {
            switch current {
            case UInt8(ascii: "\\"): position += 2
            case UInt8(ascii: "\""): position += 1; return
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): lastTokenTerminated = false; return
            default: position += 1
            }
        }
        position = bytes.count
        lastTokenTerminated = false
    }

    /// `"""…"""`: only `\"""` is an escape.
    private mutating func skipBlockString() {
        position += 3
        while let current = byte(at: position) {
            if current == UInt8(ascii: "\\"), startsWithQuotes(at: position + 1) {
                position += 4
            } else if startsWithQuotes(at: position) {
                position += 3
                return
            } else {
                position += 1
            }
        }
        position = bytes.count
        lastTokenTerminated = false
    }

    private func startsWithQuotes(at index: Int) -> Bool {
        byte(at: index) == UInt8(ascii: "\"") && byte(at: index + 1) == UInt8(ascii: "\"")
            && byte(at: index + 2) == UInt8(ascii: "\"")
    }

    /// `-?digits(.digits)?([eE][+-]?digits)?`
    private mutating func skipNumber() {
        if byte(at: position) == UInt8(ascii: "-") { position += 1 }
        skipDigits()
        if byte(at: position) == UInt8(ascii: "."), let next = byte(at: position + 1), Self.isDigit(next) {
            position += 1
            skipDigits()
        }
        if let marker = byte(at: position), marker | 0x20 == UInt8(ascii: "e") {
            var exponent = position + 1
            if let sign = byte(at: exponent), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { exponent += 1 }
            if let digit = byte(at: exponent), Self.isDigit(digit) {
                position = exponent
                skipDigits()
            }
        }
    }

    private mutating func skipDigits() {
        while let next = byte(at: position), Self.isDigit(next) { position += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
    }
}
