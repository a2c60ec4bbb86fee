@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
package import GQLGateHTTPClient
@_spi(GQLGateInternals) package import GQLGatePipeline

/// Sends queries and mutations to the upstream over HTTP (libcurl) and
/// passes its answer back unchanged but for hop-by-hop headers: any status,
/// any body (decoded, without its `Content-Encoding`, when it came compressed). The client's JSON body goes out byte for byte unless an exchange
/// rewrote the request; GET requests go upstream as POST JSON. The upstream
/// is asked for either GraphQL media type (`Operation.upstreamAccept`): the
/// endpoint gives the answer the client's. The `multipart/mixed` answer to an
/// operation using `@defer` or `@stream`, for a client that takes one (whose
/// `Accept` goes upstream as sent), comes back once its first part arrived:
/// that part is the body, and the others follow as they arrive (`subsequentResults`).
package struct HTTPTransport: Transport {
    /// Where and how to reach the upstream.
    package struct Settings: Sendable {
        package var url: String
        package var timeout: Duration
        package var connectTimeout: Duration
        /// Client header names (lower case) passed upstream.
        package var forwardedHeaders: [String]
        /// `upstream.compression`: answers may come compressed; libcurl decodes them.
        package var compression: Bool
        /// `upstream.max_response_bytes`: the largest answer body taken, counted decoded.
        package var maxResponseBytes: Int

        package init(url: String, timeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(2),
                    forwardedHeaders: [String] = ["accept-language", "traceparent", "tracestate"],
                    compression: Bool = true, maxResponseBytes: Int = 64 << 20) {
            self.url = url
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.forwardedHeaders = forwardedHeaders
            self.compression = compression
            self.maxResponseBytes = maxResponseBytes
        }
    }

    private let client: HTTPClient
    private let settings: Settings
    /// The lengths of the forwarded names, one bit per length (`lengthBit`):
    /// most client fields are ruled out by length alone, without hashing.
    private let forwardedNameLengths: UInt64

    package init(client: HTTPClient, settings: Settings) {
        self.client = client
        self.settings = settings
        forwardedNameLengths = settings.forwardedHeaders.reduce(0) { $0 | Self.lengthBit($1.utf8.count) }
    }

    /// One attempt: the upstream's answer, or the error that ended the attempt
    /// (an `UpstreamFailure`, or `CancellationError`), stated as facts of the
    /// operation (`Operation.upstreamAttempt`). One async call, with the client's.
    package func send(_ operation: Operation) async throws -> ResultStream {
        .single(try await operation.upstreamAttempt(attempt))
    }

    /// Sends `operation` and takes the answer, or throws what ended the attempt.
    private func attempt(_ operation: Operation) async throws -> GraphQLResponse {
        let request = HTTPClientRequest(
            url: settings.url, method: .post, headers: upstreamHeaders(for: operation), body: operation.upstreamBody(),
            timeout: try attemptTimeout(for: operation), connectTimeout: settings.connectTimeout,
            acceptsCompression: settings.compression, maxResponseBytes: settings.maxResponseBytes,
            readsParts: operation.defersResults && operation.acceptsIncrementalDelivery)
        let answer: HTTPClientResponse
        do {
            answer = try await client.execute(request)
        } catch let error as HTTPClientError {
            throw Self.failure(error)
        }
        guard let parts = answer.parts else {
            return GraphQLResponse(status: answer.status, headers: answer.headers, body: answer.body, source: .upstream)
        }
        guard let first = try await Self.nextPart(of: parts) else {
            throw UpstreamFailure(kind: .failedAfterSend, message: "the upstream's multipart answer has no part")
        }
        var response = GraphQLResponse(status: answer.status, headers: answer.headers, body: first, source: .upstream)
        response.subsequentResults = SubsequentResults { try await Self.nextPart(of: parts) }
        return response
    }

    /// The next part of a multipart answer, its failures as `UpstreamFailure`s.
    private static func nextPart(of parts: MultipartParts) async throws -> Bytes? {
        do {
            return try await parts.next()
        } catch let error as HTTPClientError {
            throw failure(error)
        }
    }

    /// What ended an attempt: an `UpstreamFailure`, or `CancellationError` for a cancelled transfer.
    private static func failure(_ error: HTTPClientError) -> any Error {
        UpstreamFailure(error) ?? CancellationError()
    }

    func upstreamHeaders(for operation: Operation) -> HTTPHeaders {
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(4 + settings.forwardedHeaders.count)
        fields.append(HTTPHeaders.Field(name: "Content-Type", value: "application/json"))
        fields.append(HTTPHeaders.Field(name: "Accept", value: operation.upstreamAccept))
        fields.append(HTTPHeaders.Field(name: "X-Request-Id", value: operation.requestID))
        let added = operation.upstreamHeaders
        operation.headers.withFields { clientFields in
            for index in clientFields.indices where isForwarded(clientFields[index].name) {
                if added.isEmpty || !added.contains(clientFields[index].name) { fields.append(clientFields[index]) }
            }
        }
        fields.append(contentsOf: added.fields)
        return HTTPHeaders(fields)
    }

    /// `upstream.timeout`, shortened to what is left before the operation's deadline.
    /// `now` defaults to the clock, read only when there is a deadline.
    func attemptTimeout(for operation: Operation, now: UInt64? = nil) throws(GatewayError) -> Duration {
        guard let deadline = operation.deadline else { return settings.timeout }
        let now = now ?? GatewayClock.system.monotonicNanoseconds()
        guard deadline > now else {
            throw .upstreamTimeout("The operation's deadline (retry.deadline) passed before the upstream answered.")
        }
        return min(settings.timeout, .nanoseconds(Int64(deadline - now)))
    }

    /// Whether a client header goes upstream: named in the forward list, and
    /// neither one the transport sets itself nor one that frames the message.
    private func isForwarded(_ name: String) -> Bool {
        forwardedNameLengths & Self.lengthBit(name.utf8.count) != 0 && settings.forwardedHeaders.contains { name.equalsIgnoringASCIICase($0) }
            && !Self.transportOwned.contains { name.equalsIgnoringASCIICase($0) } && !HopByHopHeaders.isHopByHop(name)
    }

    /// Bit `count` (bit 63 for 63 bytes or more).
    private static func lengthBit(_ count: Int) -> UInt64 { 1 << UInt64(min(count, 63)) }

    /// Fields the transport sets or leaves to libcurl: a client's `Accept-Encoding`
    /// never goes upstream (the upstream's codings are libcurl's, `upstream.compression`).
    static let transportOwned = ["content-type", "accept", "x-request-id", "host", "expect", "content-encoding", "accept-encoding"]
}
