/// GraphQLSwift's lexer computes a block string's value in time quadratic in
/// its lines (it inserts each line at the front of an array): a 64 KiB block
/// string of empty lines holds a loop for a quarter of a second, and a larger
/// `limits.max_document_bytes` for far longer. So before parsing, each block
/// string of more than `lineLimit` lines is replaced by the plain string
/// literal of its value (the spec's BlockStringValue), followed by as many
/// line breaks as it spanned, so that later tokens keep their line numbers.
/// Shorter ones cost little (at most `lineLimit` / 2 moves a byte) and are
/// left to the lexer; so are those holding a character the lexer refuses.
enum LongBlockStrings {
    /// Most lines in a block string left to GraphQLSwift's lexer.
    static let lineLimit = 64

    /// A query with its long block strings replaced.
    struct Rewrite {
        /// The text with the replacements.
        let text: String
        /// Each replaced block string, in order: its UTF-8 offsets in the
        /// query and those of what replaced it in `text`.
        let replacements: [(original: Range<Int>, rewritten: Range<Int>)]
    }

    /// `query` with its long block strings replaced; nil when it has none.
    static func rewritten(_ query: String) -> Rewrite? {
        var text = query
        return text.withUTF8 { bytes -> Rewrite? in
            var tokens = DocumentTokenizer(bytes)
            var out = ""
            var replacements: [(original: Range<Int>, rewritten: Range<Int>)] = []
            var copied = 0
            while let token = tokens.next() {
                guard token.count >= 6, tokens.lastTokenTerminated, bytes[token.lowerBound] == quote,
                      bytes[token.lowerBound + 1] == quote, bytes[token.lowerBound + 2] == quote
                else { continue }
                let body = bytes[(token.lowerBound + 3)..<(token.upperBound - 3)]
                var breaks = 0
                for (offset, byte) in zip(body.indices, body) {
                    if byte < 0x20, byte != tab, byte != lineFeed, byte != carriageReturn { breaks = -1; break }
                    if byte == lineFeed, offset > body.startIndex, body[offset - 1] == carriageReturn { continue }
                    if byte == lineFeed || byte == carriageReturn { breaks += 1 }
                }
                guard breaks >= lineLimit else { continue }
                if out.isEmpty { out.reserveCapacity(bytes.count) }
                out += String(decoding: bytes[copied..<token.lowerBound], as: UTF8.self)
                let start = out.utf8.count
                GraphQLStringLiteral.append(value(of: body), to: &out)
                out += String(repeating: "\n", count: breaks)
                replacements.append((original: token, rewritten: start..<out.utf8.count))
                copied = token.upperBound
            }
            guard copied > 0 else { return nil }
            return Rewrite(text: out + String(decoding: bytes[copied...], as: UTF8.self), replacements: replacements)
        }
    }

    /// The value of a block string whose text between the quotes is `body`:
    /// `\"""` unescaped, lines split at CR LF, LF or CR, the common indent of
    /// all lines but the first removed, blank first and last lines dropped.
    static func value(of body: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        var raw: [UInt8] = []
        raw.reserveCapacity(body.count)
        var index = body.startIndex
        while index < body.endIndex {
            if body[index] == backslash, index + 3 < body.endIndex, body[index + 1] == quote,
               body[index + 2] == quote, body[index + 3] == quote {
                raw += [quote, quote, quote]
                index += 4
            } else {
                raw.append(body[index])
                index += 1
            }
        }
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        index = 0
        while index < raw.count {
            guard raw[index] == lineFeed || raw[index] == carriageReturn else {
                index += 1
                continue
            }
            lines.append(raw[start..<index])
            index += raw[index] == carriageReturn && index + 1 < raw.count && raw[index + 1] == lineFeed ? 2 : 1
            start = index
        }
        lines.append(raw[start...])
        if let common = lines.dropFirst().compactMap({ indent(of: $0) }).min() {
            for line in lines.indices.dropFirst() { lines[line] = lines[line].dropFirst(common) }
        }
        let kept = lines.drop { indent(of: $0) == nil }
        let trimmed = kept.prefix(kept.count - kept.reversed().prefix { indent(of: $0) == nil }.count)
        return String(decoding: Array(trimmed.joined(separator: [lineFeed])), as: UTF8.self)
    }

    /// Spaces and tabs before the line's first other character; nil for a blank line.
    private static func indent(of line: ArraySlice<UInt8>) -> Int? {
        let count = line.prefix { $0 == space || $0 == tab }.count
        return count < line.count ? count : nil
    }

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
}
