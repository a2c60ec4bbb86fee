import GQLGateHTTPServer
import GQLGatePipeline

extension GatewayError {
    /// The answer to a request whose body framing the server refuses (RFC 9112 §6.3).
    static func framingRefused(_ refusal: FramingRefusal) -> GatewayError {
        switch refusal {
        case .invalidContentLength:
            .badRequest("Content-Length fields disagree or are not a number.")
        case .unsupportedTransferCoding:
            GatewayError(
                status: 501, code: "NOT_IMPLEMENTED",
                message: "Transfer-Encoding other than chunked is not supported; send the body as is or chunked.")
        }
    }
}
