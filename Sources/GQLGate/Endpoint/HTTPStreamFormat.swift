import GQLGateCore
import GQLGatePipeline
import GQLGateSubscriptions

/// The bytes of a streamed answer, Server-Sent Events or Apollo multipart:
/// the response headers, what opens the body, one piece per result, the
/// keep-alive and how often it is sent, a fatal error, and the end.
struct HTTPStreamFormat: Sendable {
    /// The response's header fields.
    let headers: HTTPHeaders
    /// Sent first, so the client sees the headers at once.
    let opening: String
    /// Sent every `keepAliveInterval` while the stream is open; nil: never.
    let keepAlive: String
    let keepAliveInterval: Duration?
    /// One result (an execution result object).
    let result: @Sendable (SerializedJSON) -> String
    /// A failure that ends the stream (the gateway's or the transport's), before `end`.
    let transportError: @Sendable ([JSONValue]) -> String
    /// Closes the body.
    let end: String

    /// How often Apollo multipart heartbeats are sent (Apollo Router's period).
    static let multipartHeartbeatInterval = Duration.seconds(5)

    /// The format for `delivery`; nil for deliveries that are not HTTP streams.
    /// `keepAlive` is the SSE comment period (`subscriptions.keepalive`; 0: none).
    init?(_ delivery: ResultDelivery, keepAlive: Duration) {
        switch delivery {
        case .serverSentEvents: self = .serverSentEvents(keepAlive: keepAlive)
        case .multipart: self = .multipart
        case .single, .webSocket: return nil
        }
    }

    private init(headers: HTTPHeaders, opening: String, keepAlive: String, keepAliveInterval: Duration?,
                 result: @escaping @Sendable (SerializedJSON) -> String, transportError: @escaping @Sendable ([JSONValue]) -> String,
                 end: String) {
        self.headers = headers
        self.opening = opening
        self.keepAlive = keepAlive
        self.keepAliveInterval = keepAliveInterval
        self.result = result
        self.transportError = transportError
        self.end = end
    }

    /// graphql-sse, distinct connections mode: a comment at once and every
    /// `keepAlive`, `event: next` per result, errors as a `next` with
    /// `{"errors": [...]}`, then `event: complete`.
    static func serverSentEvents(keepAlive: Duration) -> HTTPStreamFormat {
        HTTPStreamFormat(
            headers: ServerSentEvents.responseHeaders, opening: ServerSentEvents.keepAlive, keepAlive: ServerSentEvents.keepAlive,
            keepAliveInterval: keepAlive > .zero ? keepAlive : nil, result: ServerSentEvents.next,
            transportError: { ServerSentEvents.next(SerializedJSON(.object([("errors", .array($0))]))) },
            end: ServerSentEvents.complete)
    }

    /// Apollo multipart subscriptions: `{"payload": result}` parts, a `{}`
    /// heartbeat every `multipartHeartbeatInterval`, fatal errors as
    /// `{"payload": null, "errors": [...]}`, then the close delimiter.
    static let multipart = HTTPStreamFormat(
        headers: ["Content-Type": MultipartSubscription.contentType, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"],
        opening: MultipartSubscription.opening, keepAlive: MultipartSubscription.heartbeat,
        keepAliveInterval: multipartHeartbeatInterval, result: MultipartSubscription.result,
        transportError: MultipartSubscription.transportError, end: MultipartSubscription.closing)
}
