/// Why a WebSocket text message is not a valid message of its protocol; the
/// reason is what a 4400 close or an error message tells the peer.
public struct MessageDecodingError: Error, Sendable, Equatable {
    /// A short, human-readable reason.
    public let reason: String
    /// The message's `id`, when it was a JSON object with a string one (so an
    /// error can be addressed to that operation).
    public let id: String?

    public init(_ reason: String, id: String? = nil) {
        self.reason = reason
        self.id = id
    }
}
