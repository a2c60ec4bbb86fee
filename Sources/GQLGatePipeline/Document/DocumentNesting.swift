/// The bound on how deeply a document may nest `{`, `(` and `[`, checked on
/// the text before it is parsed: GraphQLSwift's parser (and every pass over
/// the tree) recurses once or more per level, so an unbounded document could
/// overflow a thread's stack. 256 levels is far beyond real operations (whose
/// selection depth `limits.max_depth` bounds at 15 by default) and far within
/// the loops' stacks (see `EventLoop.threadStackBytes`).
package enum DocumentNesting {
    /// Deepest nesting of `{ ( [` accepted, strings and comments aside.
    package static let limit = 256

    /// Throws `QUERY_TOO_COMPLEX` when `query` nests deeper than `limit`.
    /// One pass over the text; stops at the first level past the bound.
    package static func check(_ query: String) throws(GatewayError) {
        if let offset = firstBracketPastLimit(query) {
            throw .queryTooComplex("The document nests { ( [ more than \(limit) levels deep (at byte \(offset)).")
        }
    }

    /// The byte offset of the first bracket that opens level `limit + 1`; nil when there is none.
    static func firstBracketPastLimit(_ query: String) -> Int? {
        firstBracket(in: query, pastDepth: limit)
    }

    /// The byte offset of the first `{ ( [` (outside strings, block strings
    /// and comments) that opens level `levels + 1`; nil when there is none.
    package static func firstBracket(in query: String, pastDepth levels: Int) -> Int? {
        var text = query
        return text.withUTF8 { bytes in
            var tokens = DocumentTokenizer(bytes)
            var depth = 0
            while let token = tokens.next() {
                switch bytes[token.lowerBound] {
                case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                    depth += 1
                    if depth > levels { return token.lowerBound }
                case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                    depth = max(0, depth - 1)
                default:
                    continue
                }
            }
            return nil
        }
    }
}
