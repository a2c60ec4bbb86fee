package import GQLGateCore

/// The bytes of GraphQL over Server-Sent Events, distinct connections mode
/// (graphql-sse): one `next` event per result, one `complete` at the end,
/// and comment lines as keep-alives.
package enum ServerSentEvents {
    /// The response's `Content-Type`.
    package static let contentType = "text/event-stream; charset=utf-8"

    /// The response's header fields: the type, no caching, no proxy buffering.
    package static let responseHeaders: HTTPHeaders = [
        "Content-Type": contentType,
        "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no",
    ]

    /// `event: next` with the execution result as its data. A result with
    /// line breaks (an upstream's pretty-printed body) becomes one `data:`
    /// line per line, which the client joins back.
    package static func next(_ result: SerializedJSON) -> String {
        var out = "event: next\n"
        var rest = Substring(result.text)
        while let lineBreak = rest.firstIndex(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            out += "data: " + rest[..<lineBreak] + "\n"
            rest = rest[rest.index(after: lineBreak)...]
        }
        out += "data: " + rest + "\n\n"
        return out
    }

    /// `event: complete` with an empty `data:` line (without it `EventSource` fires no event).
    package static let complete = "event: complete\ndata:\n\n"

    /// A comment: sent at once to flush the headers, then as a keep-alive.
    package static let keepAlive = ":\n\n"

    /// Whether an `Accept` header asks for an event stream: names `text/event-stream` with a weight above 0.
    package static func isAccepted(by accept: String) -> Bool {
        AcceptHeader(accept).names("text", "event-stream")
    }
}
