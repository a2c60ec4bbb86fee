/// Why a WebSocket text message is not a valid message of its protocol; the
/// reason is what a 4400 close or an error message tells the peer.
package struct MessageDecodingError: Error, Sendable, Equatable {
    /// A short, human-readable reason.
    package let reason: String
    /// The message's `id`, when it was a JSON object with a string one (so an
    /// error can be addressed to that operation).
    package let id: String?

    package init(_ reason: String, id: String? = nil) {
        self.reason = reason
        self.id = id
    }
}
