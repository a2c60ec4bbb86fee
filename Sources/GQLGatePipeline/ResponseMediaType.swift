import GQLGateCore

/// The media type of a GraphQL answer over HTTP (GraphQL over HTTP,
/// "Media Types"), which decides the answer's `Content-Type` and the status
/// rules it follows. With `application/graphql-response+json` a GraphQL
/// request error (a document that does not parse or validate, an operation
/// that cannot be chosen) is a 4xx; with `application/json` a well-formed
/// request gets 200 whatever GraphQL errors it raised, and a status other
/// than 200 tells the client the body may be no GraphQL response at all.
package enum ResponseMediaType: Sendable, Equatable {
    /// `application/graphql-response+json`: the spec's type, and gqlgate's choice when the client names neither.
    case graphQLResponse
    /// `application/json`: the legacy type.
    case json

    /// The `Content-Type` of an answer in this type (always UTF-8).
    package var contentType: String {
        switch self {
        case .graphQLResponse: "application/graphql-response+json; charset=utf-8"
        case .json: "application/json; charset=utf-8"
        }
    }

    /// The type a client's `Accept` asks for: the one of the two it rates
    /// higher (q-values, the most specific range deciding, RFC 9110); at
    /// equal weight the one it names itself over one a wildcard admits,
    /// `application/graphql-response+json` when it names both, and
    /// `application/json` when only wildcards admit them (`*/*`, as a
    /// generic HTTP client sends). A range with a charset other than UTF-8
    /// admits neither. Without an `Accept` (or an empty one), and when it
    /// admits neither but names a stream the request is served in
    /// (`text/event-stream`, `multipart/mixed`), `application/graphql-response+json`.
    /// Nil when it admits nothing gqlgate or the upstream can answer in: 406.
    package static func negotiated(byAccept accept: String?) -> ResponseMediaType? {
        guard let accept else { return .graphQLResponse }
        switch accept {  // what most clients send, without reading the header
        case "*/*", "application/json": return .json
        case "application/graphql-response+json", "application/graphql-response+json, application/json;q=0.9": return .graphQLResponse
        default: break
        }
        guard !accept.utf8.allSatisfy(\.isASCIISpace) else { return .graphQLResponse }
        let header = AcceptHeader(accept)
        let modern = header.rating(of: "application", "graphql-response+json", where: isUTF8)
        let legacy = header.rating(of: "application", "json", where: isUTF8)
        switch (modern, legacy) {
        case let (modern?, legacy?) where modern.isAcceptable && legacy.isAcceptable:
            if modern.quality != legacy.quality { return modern.quality > legacy.quality ? .graphQLResponse : .json }
            if modern.specificity != legacy.specificity { return modern.specificity > legacy.specificity ? .graphQLResponse : .json }
            return modern.specificity >= .exact ? .graphQLResponse : .json
        case let (modern?, _) where modern.isAcceptable: return .graphQLResponse
        case let (_, legacy?) where legacy.isAcceptable: return .json
        default:
            return header.names("text", "event-stream") || header.names("multipart", "mixed") ? .graphQLResponse : nil
        }
    }

    /// The type a `Content-Type` names; nil for any other, or for a charset other than UTF-8.
    package init?(contentType: String?) {
        switch contentType {  // what most answers carry, without reading the field
        case "application/json", "application/json; charset=utf-8": self = .json
        case "application/graphql-response+json", "application/graphql-response+json; charset=utf-8": self = .graphQLResponse
        default: self.init(parsing: contentType)
        }
    }

    private init?(parsing contentType: String?) {
        guard let contentType, let range = MediaRange.list(contentType).first, range.type == "application", isUTF8(range) else { return nil }
        switch range.subtype {
        case "graphql-response+json": self = .graphQLResponse
        case "json": self = .json
        default: return nil
        }
    }
}

/// Whether a range is of UTF-8 text: no charset, or `utf-8` (GraphQL over HTTP assumes UTF-8 without one).
private func isUTF8(_ range: MediaRange) -> Bool {
    guard let charset = range.parameter("charset")?.lowercased() else { return true }
    return charset == "utf-8" || charset == "utf8"
}
