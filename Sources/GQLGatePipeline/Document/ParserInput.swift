/// A client's query text as GraphQLSwift's parser is given it — long block
/// strings replaced (`LongBlockStrings`), line breaks appended
/// (`LexerPadding`) — and the way back: an offset into what the parser read,
/// as the place in the client's text it stands for.
package struct ParserInput {
    /// The text to parse.
    package let text: String
    /// The client's text.
    private let query: String
    private let replacements: [(original: Range<Int>, rewritten: Range<Int>)]

    package init(_ query: String) {
        self.query = query
        let rewrite = LongBlockStrings.rewritten(query)
        text = LexerPadding.padded(rewrite?.text ?? query)
        replacements = rewrite?.replacements ?? []
    }

    /// The place in the client's text of the UTF-8 offset `offset` into
    /// `text`: a replaced block string stands for the original one, and the
    /// appended line breaks for the end of the client's text.
    package func clientLocation(ofParsedOffset offset: Int) -> DocumentLocation {
        var shift = 0  // original offset minus rewritten offset, past the replacements so far
        for replacement in replacements {
            if offset < replacement.rewritten.lowerBound { break }
            if offset < replacement.rewritten.upperBound { return DocumentLocation(utf8Offset: replacement.original.lowerBound, in: query) }
            shift = replacement.original.upperBound - replacement.rewritten.upperBound
        }
        return DocumentLocation(utf8Offset: offset + shift, in: query)
    }
}
