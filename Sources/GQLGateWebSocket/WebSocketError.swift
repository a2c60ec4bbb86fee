package import GQLGateCore

/// Why a WebSocket handshake or operation failed.
package struct WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    package enum Kind: Sendable, Equatable {
        /// A client's upgrade request is not a valid WebSocket handshake (answer 400).
        case badUpgradeRequest
        /// A client asked for a protocol version other than 13 (answer 426).
        case unsupportedVersion
        /// The server's answer to our upgrade request is not a valid `101` handshake.
        case badHandshakeResponse
        /// The connection is closing or closed; nothing more can be sent.
        case notOpen
        /// The bytes queued for the peer would pass the send buffer limit; the
        /// connection is being closed with 1008.
        case sendBufferFull
        /// The transport failed or timed out while the handshake was in progress.
        case transportFailed
        /// The URL is not a `ws://` or `wss://` URL.
        case invalidURL
    }

    package let kind: Kind
    /// A sentence saying what exactly was wrong.
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }

    /// The HTTP status to answer a rejected upgrade request with.
    package var httpStatus: Int {
        kind == .unsupportedVersion ? 426 : 400
    }

    /// Header fields for the rejection answer (`Sec-WebSocket-Version: 13` for a version mismatch).
    package var responseHeaders: HTTPHeaders {
        kind == .unsupportedVersion ? ["Sec-WebSocket-Version": "13"] : HTTPHeaders()
    }
}
