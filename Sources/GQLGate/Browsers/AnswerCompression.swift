import GQLGateCompression
import GQLGateConfig
import GQLGateCore
import GQLGatePipeline

/// `compression`: which answers are compressed, with what. An answer of
/// `min_bytes` or more that has no `Content-Encoding` of its own varies by
/// `Accept-Encoding`; it is compressed with the coding the client rates
/// highest among `algorithms`, once per coding when it is a stored answer.
struct AnswerCompression: Sendable {
    let minBytes: Int
    let algorithms: [ContentCoding]

    /// The settings `config` gives; nil when `compression.enabled` is false or no coding is offered.
    init?(_ config: CompressionConfig) {
        guard config.enabled, !config.algorithms.isEmpty else { return nil }
        minBytes = max(1, config.minBytes)
        algorithms = config.algorithms
    }

    /// `headers` and `body` to send for `result` to a client that sent
    /// `acceptEncoding`: compressed when it is large enough and the client
    /// accepts a coding offered.
    func encode(_ result: GraphQLResponse, acceptEncoding: String?) -> (headers: HTTPHeaders, body: Bytes) {
        guard result.body.count >= minBytes, !result.headers.contains("content-encoding") else { return (result.headers, result.body) }
        var headers = result.headers
        headers.add(name: "Vary", value: "Accept-Encoding")
        guard let coding = AcceptEncoding.preferred(acceptEncoding, offered: algorithms) else { return (headers, result.body) }
        let body = result.body
        let compressed = result.encodings.map { $0.body(coding) { Compressor.compress(body, as: coding) } }
            ?? Compressor.compress(body, as: coding)
        guard let compressed else { return (headers, body) }
        headers.add(name: "Content-Encoding", value: coding.rawValue)
        return (headers, compressed)
    }
}
