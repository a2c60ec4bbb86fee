import GQLGateCore
package import GQLGatePipeline

/// The bytes of Apollo's multipart HTTP subscriptions (`subscriptionSpec=1.0`).
///
/// The body is `opening`, then one `part` per message, then `closing`:
/// every part ends with the boundary delimiter, so `closing` only adds the
/// final `--`. Results are wrapped as `{"payload": result}` (GraphQL errors
/// stay inside and the subscription goes on); `heartbeat` is an empty
/// object clients ignore; a transport-level failure is
/// `{"payload":null,"errors":[...]}` followed by `closing`.
package enum MultipartSubscription {
    /// The response's `Content-Type`.
    package static let contentType = "multipart/mixed;boundary=\"graphql\";subscriptionSpec=1.0"

    /// The first bytes of the body: the first boundary delimiter.
    package static let opening = "\r\n--graphql"

    /// A result, as one part.
    package static func result(_ result: SerializedJSON) -> String {
        part("{\"payload\":" + result.text + "}")
    }

    /// The keep-alive part, `{}`.
    package static let heartbeat = part("{}")

    /// A fatal error as one part; send `closing` after it.
    package static func transportError(_ errors: [JSONValue]) -> String {
        part("{\"payload\":null,\"errors\":" + JSONValue.array(errors).serialized() + "}")
    }

    /// Ends the body: turns the last delimiter into the close delimiter `--graphql--`.
    package static let closing = "--\r\n"

    private static func part(_ body: String) -> String {
        "\r\ncontent-type: application/json\r\n\r\n" + body + "\r\n--graphql"
    }

    /// Whether an `Accept` header asks for multipart subscriptions:
    /// `multipart/mixed` with `subscriptionSpec` 1.0, quoted or not, and a weight above 0.
    package static func isAccepted(by accept: String) -> Bool {
        AcceptHeader(accept).names("multipart", "mixed") { $0.parameter("subscriptionspec") == "1.0" }
    }
}
