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
        case .headerFieldsTooLarge:
            GatewayError(
                status: 431, code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
                message: "The request line and header fields leave too little of server.max_header_bytes for the answer; send fewer or shorter ones.")
        }
    }
}
