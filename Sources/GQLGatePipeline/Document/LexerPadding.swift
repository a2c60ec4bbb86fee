/// Query text as GraphQLSwift's lexer must be given it. The lexer reads the
/// bytes after a string's escape (`\u` and four digits, or the one after `\`)
/// and after `\"""` in a block string without checking for the end of the
/// text, so a string left open at the very end (`{ a(x: "\u12`, `"\`) makes it
/// index past the end and trap: one small request would stop the process.
/// Line breaks after the text end any such string, changing no token: an
/// unterminated string is a syntax error either way.
enum LexerPadding {
    /// `text` followed by enough line breaks for the lexer's look-ahead.
    static func padded(_ text: String) -> String {
        text + "\n\n\n\n\n"
    }
}
