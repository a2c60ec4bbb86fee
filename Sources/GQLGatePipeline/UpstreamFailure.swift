/// Why an upstream gave no answer, whatever the transport: sorted by what it
/// means for trying again, that is whether the request can have reached the
/// upstream. Transports throw it for failed attempts (cancellation stays
/// `CancellationError`); retry, the circuit breaker, metrics and spans read
/// it, through `UpstreamAttemptOutcome`.
package struct UpstreamFailure: Error, Sendable, CustomStringConvertible {
    /// What the failure means for the request. The raw value is the kind's
    /// label, the one string metrics (`outcome` of
    /// `gqlgate_upstream_requests_total`, `reason` of `gqlgate_retries_total`)
    /// and spans (`gqlgate.upstream.outcome`, `error.type`) print for it.
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Nothing was sent: connection refused, DNS failure, connect timeout.
        /// Safe to retry even a mutation.
        case notReached = "unreachable"
        /// The attempt ran past its deadline after the request left.
        case timedOut = "timeout"
        /// The connection failed after (part of) the request was sent.
        case failedAfterSend = "connection_error"
        /// The answer's body, decoded, was larger than `upstream.max_response_bytes`:
        /// the upstream ran the request, and the same answer would come again.
        case answerTooLarge = "too_large"

        /// What metrics and spans print for the kind (its raw value).
        package var label: String { rawValue }
    }

    package let kind: Kind
    /// The transport's message for the failure, as the client may read it.
    package let message: String
    /// The transport's own description (for logs), with its error code.
    package let description: String

    package init(kind: Kind, message: String, description: String? = nil) {
        self.kind = kind
        self.message = message
        self.description = description ?? message
    }
}

extension UpstreamFailure: GatewayErrorConvertible {
    /// No (usable) answer from the upstream: 504 when it was too slow, else 502.
    package var gatewayError: GatewayError {
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
