package import GraphQL

/// A syntax error GraphQLSwift's parser threw, as the client is told it.
/// The parser's message names the place in what it read, with an excerpt of
/// it (`Syntax Error GraphQL (6:1) Expected Name, found <EOF>`, then the
/// lines around, padding included); the client gets the description alone
/// (`Syntax Error: Expected Name, found <EOF>`) and the place in its own
/// text as the error's location.
package struct ClientSyntaxError: Sendable {
    package let message: String
    /// Where the error is in the client's text; nil when the parser named no place.
    package let location: DocumentLocation?

    /// `error`, thrown by parsing `input.text`.
    package init(_ error: GraphQLError, input: ParserInput) {
        message = Self.description(of: error.message)
        location = error.positions.first.map { input.clientLocation(ofParsedOffset: $0) }
    }

    /// `Syntax Error: <description>` out of the parser's
    /// `Syntax Error <source name> (<line>:<column>) <description>` and excerpt;
    /// another message's first line as it is.
    private static func description(of message: String) -> String {
        let firstPart = message.firstRange(of: "\n\n").map { message[..<$0.lowerBound] } ?? message[...]
        guard firstPart.hasPrefix("Syntax Error "), let place = firstPart.firstRange(of: ") ") else {
            return String(firstPart.prefix { $0 != "\n" })
        }
        return "Syntax Error: " + firstPart[place.upperBound...]
    }
}
