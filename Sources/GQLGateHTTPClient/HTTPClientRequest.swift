package import GQLGateCore

/// A request to the upstream.
package struct HTTPClientRequest: Sendable {
    /// The request method.
    package enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    /// Absolute URL, query string included.
    package var url: String
    package var method: Method
    /// Header fields to send (curl adds Host, Content-Length and friends).
    package var headers: HTTPHeaders
    /// The body for POST; kept alive, not copied, until the transfer ends.
    package var body: Bytes
    /// Whole-transfer limit (the per-attempt `upstream.timeout`).
    package var timeout: Duration
    /// Limit for establishing the connection (`upstream.connect_timeout`).
    package var connectTimeout: Duration
    /// Whether the answer may come compressed (`upstream.compression`): libcurl
    /// sends `Accept-Encoding` with every coding its build decodes and decodes
    /// the body, which then comes without its `Content-Encoding`.
    package var acceptsCompression: Bool
    /// The largest body accepted, counted after decoding
    /// (`upstream.max_response_bytes`); past it the transfer ends with `answerTooLarge`.
    package var maxResponseBytes: Int
    /// Whether a `multipart/mixed` answer (with a final status) is handed on
    /// part by part: the caller gets its head as soon as its header block
    /// came, and each part as it arrives (`HTTPClientResponse.parts`), the
    /// parts together within `maxResponseBytes`. Any other answer is gathered whole.
    package var readsParts: Bool

    package init(url: String, method: Method, headers: HTTPHeaders = HTTPHeaders(), body: Bytes = .empty,
                timeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(2),
                acceptsCompression: Bool = true, maxResponseBytes: Int = 64 << 20, readsParts: Bool = false) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.acceptsCompression = acceptsCompression
        self.maxResponseBytes = maxResponseBytes
        self.readsParts = readsParts
    }
}

/// The upstream's answer, as received.
package struct HTTPClientResponse: Sendable {
    /// HTTP status code.
    package var status: Int
    /// The final response's end-to-end header fields, in order: hop-by-hop
    /// fields, those `Connection` names, and `Content-Length` are left out
    /// (`EndToEndFields`), so a proxy can pass the rest on as they are;
    /// `Content-Encoding` too when the request `acceptsCompression`.
    package var headers: HTTPHeaders
    /// The body bytes, decoded when the request `acceptsCompression`, else
    /// unchanged; empty when the body comes as `parts`.
    package var body: Bytes
    /// A `multipart/mixed` answer's parts, still to come, when the request `readsParts`.
    package var parts: MultipartParts?

    package init(status: Int, headers: HTTPHeaders, body: Bytes, parts: MultipartParts? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.parts = parts
    }
}
