/// A WebSocket close to send: a status code and a reason of at most 123
/// UTF-8 bytes (RFC 6455 §5.5.1), cut at a character boundary when longer.
package struct WebSocketClose: Sendable, Equatable, CustomStringConvertible {
    /// The close status code.
    package let code: UInt16
    /// The reason text.
    package let reason: String

    /// The longest reason a close frame can carry, in bytes.
    package static let maximumReasonBytes = 123

    package init(code: UInt16, reason: String) {
        self.code = code
        var kept = ""
        var bytes = 0
        for character in reason {
            bytes += character.utf8.count
            guard bytes <= Self.maximumReasonBytes else { break }
            kept.append(character)
        }
        self.reason = kept
    }

    package var description: String { "\(code) \(reason)" }

    // MARK: - RFC 6455 codes

    /// 1000: the session ended normally.
    package static let normal = WebSocketClose(code: 1000, reason: "Normal Closure")
    /// 1001: the gateway is going away (draining).
    package static let goingAway = WebSocketClose(code: 1001, reason: "Going away")
    /// 1011: the legacy protocol's close after a rejected `connection_init`.
    package static let internalError = WebSocketClose(code: 1011, reason: "Internal Error")

    // MARK: - graphql-transport-ws codes

    /// 4400: a message that is not valid JSON, has an unknown type or bad fields.
    package static func badRequest(_ reason: String) -> WebSocketClose { WebSocketClose(code: 4400, reason: reason) }
    /// 4401: `subscribe` before `connection_ack`.
    package static let unauthorized = WebSocketClose(code: 4401, reason: "Unauthorized")
    /// 4403: the caller refused the `connection_init` payload.
    package static let forbidden = WebSocketClose(code: 4403, reason: "Forbidden")
    /// 4408: no `connection_init` within the init timeout.
    package static let initTimeout = WebSocketClose(code: 4408, reason: "Connection initialisation timeout")
    /// 4409: `subscribe` with the id of an operation still running.
    package static func subscriberExists(_ id: String) -> WebSocketClose {
        WebSocketClose(code: 4409, reason: "Subscriber for \(id) already exists")
    }
    /// 4429: a second `connection_init`.
    package static let tooManyInitRequests = WebSocketClose(code: 4429, reason: "Too many initialisation requests")
    /// 4004: the upstream sent something the gateway, as its client, cannot read.
    package static func badResponse(_ reason: String) -> WebSocketClose { WebSocketClose(code: 4004, reason: reason) }
    /// 4504: the upstream did not acknowledge `connection_init` in time.
    package static let ackTimeout = WebSocketClose(code: 4504, reason: "Connection acknowledgement timeout")
    /// 4408 from the client side: the upstream stopped answering keep-alives.
    package static let keepAliveTimeout = WebSocketClose(code: 4408, reason: "Keep-alive timeout")
}
