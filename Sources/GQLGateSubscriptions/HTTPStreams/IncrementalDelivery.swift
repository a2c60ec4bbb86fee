import GQLGateCore
package import GQLGatePipeline

/// GraphQL incremental delivery over HTTP (`@defer`, `@stream`): an answer
/// whose results come as the parts of one `multipart/mixed` body
/// (graphql-over-http's Incremental Delivery RFC, Apollo's `deferSpec=20220824`).
///
/// The body gqlgate writes is `opening`, one `part` per result, then
/// `closing`: every part ends with the delimiter after it, so a client
/// (Apollo's, meros) hands each result on as soon as it came, and `closing`
/// only adds the final `--`. The results are the upstream's, byte for byte.
package enum IncrementalDelivery {
    /// The boundary gqlgate's parts are separated by: JSON never holds `CRLF---`.
    package static let boundary = "-"

    /// The answer's `Content-Type`: `multipart/mixed` with gqlgate's boundary
    /// and the upstream's other parameters (`deferSpec=20220824`, say, which
    /// tells the format of the results).
    package static func contentType(replacing upstream: String?) -> String {
        let parameters = (upstream ?? "").split(separator: ";").dropFirst().filter { piece in
            let name = piece.split(separator: "=", maxSplits: 1).first.map { String($0.trimmingASCIISpaces()) } ?? ""
            return !name.isEmpty && !name.equalsIgnoringASCIICase("boundary")
        }
        return (["multipart/mixed", "boundary=\"\(boundary)\""] + parameters.map { String($0.trimmingASCIISpaces()) }).joined(separator: "; ")
    }

    /// The first bytes of the body: the first delimiter.
    package static let opening = "\r\n--" + boundary

    /// One result (a JSON object), as one part.
    package static func part(_ result: String) -> String {
        "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n" + result + "\r\n--" + boundary
    }

    /// A failure that ends the answer early (the upstream timed out or went
    /// away), as a last part `{"errors": [...], "hasNext": false}`; send `closing` after it.
    package static func failure(_ errors: [JSONValue]) -> String {
        part(JSONValue.object([("errors", .array(errors)), ("hasNext", .bool(false))]).serialized())
    }

    /// Ends the body: turns the last delimiter into the close delimiter.
    package static let closing = "--\r\n"

    /// Whether an `Accept` header admits an incremental answer: a
    /// `multipart/mixed` range with a weight above 0, with any parameters
    /// (Apollo clients send `deferSpec=20220824`) but `subscriptionSpec`
    /// (Apollo's multipart subscriptions, another protocol). Wildcards
    /// (`*/*`, `multipart/*`) do not count: they are what clients that read
    /// no multipart body send (curl, browsers' fetch).
    package static func isAccepted(by accept: String?) -> Bool {
        // Most requests ask for JSON: a byte scan skips the parse for them.
        guard let accept, accept.containsIgnoringASCIICase("multipart") else { return false }
        return AcceptHeader(accept).names("multipart", "mixed") { $0.parameter("subscriptionspec") == nil }
    }
}
