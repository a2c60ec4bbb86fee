/// Why an upstream gave no answer, whatever the transport: sorted by what it
/// means for trying again, that is whether the request can have reached the
/// upstream. Transports throw it for failed attempts (cancellation stays
/// `CancellationError`); retry and metrics read it.
public struct UpstreamFailure: Error, Sendable, CustomStringConvertible {
    /// What the failure means for the request.
    public enum Kind: Sendable, Equatable {
        /// Nothing was sent: connection refused, DNS failure, connect timeout.
        /// Safe to retry even a mutation.
        case notReached
        /// The attempt ran past its deadline after the request left.
        case timedOut
        /// The connection failed after (part of) the request was sent.
        case failedAfterSend
        /// The answer's body, decoded, was larger than `upstream.max_response_bytes`:
        /// the upstream ran the request, and the same answer would come again.
        case answerTooLarge
    }

    public let kind: Kind
    /// The transport's message for the failure, as the client may read it.
    public let message: String
    /// The transport's own description (for logs), with its error code.
    public let description: String

    public init(kind: Kind, message: String, description: String? = nil) {
        self.kind = kind
        self.message = message
        self.description = description ?? message
    }
}

extension UpstreamFailure: GatewayErrorConvertible {
    /// No (usable) answer from the upstream: 504 when it was too slow, else 502.
    public var gatewayError: GatewayError {
        switch kind {
        case .timedOut:
            return .upstreamTimeout("The upstream did not answer within upstream.timeout.")
        case .notReached:
            return .upstreamUnavailable("The upstream could not be reached: \(message).")
        case .failedAfterSend:
            return .upstreamUnavailable("The upstream connection failed: \(message).")
        case .answerTooLarge:
            return .upstreamResponseTooLarge("The upstream's answer was cut off: \(message).")
        }
    }
}
