import GQLGateHTTPClient
import GQLGatePipeline

extension HTTPClientError: GatewayErrorConvertible {
    /// No answer from the upstream: 504 when it was too slow, else 502.
    public var gatewayError: GatewayError {
        switch kind {
        case .timedOut:
            return .upstreamTimeout("The upstream did not answer within upstream.timeout.")
        case .notReached:
            return .upstreamUnavailable("The upstream could not be reached: \(message).")
        case .failedAfterSend, .cancelled:
            return .upstreamUnavailable("The upstream connection failed: \(message).")
        }
    }
}
