package import GQLGateCore

/// A whole data message, however many frames it came in.
package enum WebSocketMessage: Sendable, Equatable {
    /// A text message (valid UTF-8 by construction).
    case text(String)
    /// A binary message.
    case binary(Bytes)

    /// The message as text; a binary message's bytes are read as UTF-8
    /// (the GraphQL WebSocket protocols carry JSON either way).
    package var text: String {
        switch self {
        case .text(let text): return text
        case .binary(let bytes): return bytes.string
        }
    }
}

/// The close codes gqlgate sends or reports (RFC 6455 §7.4); those wslay
/// closes with itself (1007 for text that is not UTF-8, 1009 for a message
/// over the limit) are not named.
package enum WebSocketCloseCode {
    /// Normal closure.
    package static let normal: UInt16 = 1000
    /// The endpoint is going away (shutdown).
    package static let goingAway: UInt16 = 1001
    /// A protocol error (bad frame, masking, reserved opcode or bits).
    package static let protocolError: UInt16 = 1002
    /// No close frame arrived; the connection just ended. Never sent.
    package static let abnormal: UInt16 = 1006
    /// Policy violation; gqlgate sends it when a peer does not read fast
    /// enough and its send buffer overflows.
    package static let policyViolation: UInt16 = 1008
    /// An internal error; gqlgate sends it when keep-alive pings go unanswered.
    package static let internalError: UInt16 = 1011
}
