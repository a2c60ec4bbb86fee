public import GQLGateCore

/// An answer the gateway makes itself: status, `extensions.code` and a
/// message, rendered as a GraphQL response body. Every layer's error becomes
/// one of these at the edge (see `GatewayErrorConvertible`).
public struct GatewayError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// The contract's `extensions.code`, e.g. `BAD_REQUEST`.
    public var code: String
    public var message: String
    /// Extra header fields (e.g. `Allow` for 405).
    public var headers: HTTPHeaders
    /// Where in the client's document the error is (a syntax error's place); empty for most errors.
    package var locations: [DocumentLocation] = []
    /// The GraphQL error objects, when the answer has several (validation
    /// errors, each with its locations); empty: the one `graphQLError`.
    package var details: [JSONValue] = []
    /// Whether the error is a GraphQL request error raised for a well-formed
    /// GraphQL-over-HTTP request: its document does not parse, breaks a
    /// validation rule (gqlgate's limits are such rules), or names no
    /// operation to run. Its `status` is the `application/graphql-response+json`
    /// one; an `application/json` answer carries it with 200 (`status(as:)`).
    /// Every other error (the request itself, the client's permissions, the
    /// upstream, the gateway) keeps its status in both media types.
    package var isGraphQLRequestError = false

    public init(status: Int, code: String, message: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public static func == (lhs: GatewayError, rhs: GatewayError) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.message == rhs.message
            && lhs.headers.fields == rhs.headers.fields && lhs.locations == rhs.locations && lhs.details == rhs.details
            && lhs.isGraphQLRequestError == rhs.isGraphQLRequestError
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// The error as one GraphQL error object, `{"message":...,"locations":[...],"extensions":{"code":...}}`
    /// (`locations` only when there are some): what every answer gqlgate makes itself carries, over HTTP
    /// and in stream and WebSocket messages.
    package var graphQLError: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("message", .string(message))]
        if !locations.isEmpty { members.append(("locations", .array(locations.map(\.json)))) }
        members.append(("extensions", .object([("code", .string(code))])))
        return .object(members)
    }

    /// The GraphQL error objects the answer carries: `details`, or the one `graphQLError`.
    package var graphQLErrors: [JSONValue] {
        details.isEmpty ? [graphQLError] : details
    }

    /// `{"errors":[...]}` with `graphQLErrors`.
    package func jsonBody() -> String {
        JSONValue.object([("errors", .array(graphQLErrors))]).serialized()
    }

    /// The error as a response to send, in `application/graphql-response+json`
    /// (what the endpoint sends in the client's media type: `response(as:)`).
    public func response() -> GraphQLResponse {
        response(as: .graphQLResponse)
    }

    /// The error as an answer in `mediaType`: its `Content-Type`, and its status under that type's rules.
    package func response(as mediaType: ResponseMediaType) -> GraphQLResponse {
        var headers = self.headers
        headers.add(name: "Content-Type", value: mediaType.contentType)
        return GraphQLResponse(status: status(as: mediaType), headers: headers, body: Bytes(jsonBody()), source: .gateway)
    }

    /// The status of the error's answer in `mediaType`: 200 for a GraphQL
    /// request error in `application/json`, else `status`.
    package func status(as mediaType: ResponseMediaType) -> Int {
        mediaType == .json && isGraphQLRequestError ? 200 : status
    }

    // MARK: - The contract's cases

    public static func badRequest(_ message: String) -> GatewayError {
        GatewayError(status: 400, code: "BAD_REQUEST", message: message)
    }

    /// 400 `BAD_REQUEST` for a document that does not say which operation to
    /// run (GraphQL's GetOperation fails): a GraphQL request error.
    package static func operationNotDetermined(_ message: String) -> GatewayError {
        var error = badRequest(message)
        error.isGraphQLRequestError = true
        return error
    }

    /// 400 `GRAPHQL_PARSE_FAILED`: a GraphQL request error.
    public static func parseFailed(_ message: String) -> GatewayError {
        var error = GatewayError(status: 400, code: "GRAPHQL_PARSE_FAILED", message: message)
        error.isGraphQLRequestError = true
        return error
    }

    /// `GRAPHQL_PARSE_FAILED` for a syntax error in the client's text, located in it.
    package static func parseFailed(_ error: ClientSyntaxError) -> GatewayError {
        var failed = parseFailed(error.message)
        failed.locations = error.location.map { [$0] } ?? []
        return failed
    }

    /// 400 `QUERY_TOO_COMPLEX`: the document breaks one of gqlgate's limits,
    /// validation rules of its own (GraphQL over HTTP, "Validation"): a GraphQL request error.
    public static func queryTooComplex(_ message: String) -> GatewayError {
        var error = GatewayError(status: 400, code: "QUERY_TOO_COMPLEX", message: message)
        error.isGraphQLRequestError = true
        return error
    }

    public static func methodNotAllowed(_ message: String, allow: String) -> GatewayError {
        GatewayError(status: 405, code: "METHOD_NOT_ALLOWED", message: message, headers: ["Allow": allow])
    }

    public static let subscriptionTransportRequired = GatewayError(
        status: 400, code: "SUBSCRIPTION_TRANSPORT_REQUIRED",
        message: "Subscriptions need a streaming transport: WebSocket, Server-Sent Events (Accept: text/event-stream) or multipart (Accept: multipart/mixed).")

    public static func unsupportedMediaType(_ message: String) -> GatewayError {
        GatewayError(status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: message)
    }

    public static func payloadTooLarge(limit: Int) -> GatewayError {
        GatewayError(status: 413, code: "PAYLOAD_TOO_LARGE", message: "Request body is larger than server.max_body_bytes (\(limit) bytes).")
    }

    /// APQ: the hash is not (or no longer) known; the client resends it with the query.
    /// 200 and `Cache-Control: private, no-cache, must-revalidate`, as Apollo Server answers.
    public static let persistedQueryNotFound = GatewayError(
        status: 200, code: "PERSISTED_QUERY_NOT_FOUND", message: "PersistedQueryNotFound",
        headers: ["Cache-Control": "private, no-cache, must-revalidate"])

    /// APQ: the query's SHA-256 is not the hash sent with it.
    public static let persistedQueryHashMismatch = GatewayError(
        status: 400, code: "PERSISTED_QUERY_HASH_MISMATCH", message: "provided sha does not match query")

    public static func upstreamUnavailable(_ message: String) -> GatewayError {
        GatewayError(status: 502, code: "UPSTREAM_UNAVAILABLE", message: message)
    }

    /// 502 `UPSTREAM_RESPONSE_TOO_LARGE`: the upstream's answer, decoded, ran past `upstream.max_response_bytes`.
    public static func upstreamResponseTooLarge(_ message: String) -> GatewayError {
        GatewayError(status: 502, code: "UPSTREAM_RESPONSE_TOO_LARGE", message: message)
    }

    public static func upstreamTimeout(_ message: String) -> GatewayError {
        GatewayError(status: 504, code: "UPSTREAM_TIMEOUT", message: message)
    }

    /// 401 `UNAUTHENTICATED` with `WWW-Authenticate: Bearer`: the client key is missing or wrong.
    public static func unauthenticated(_ message: String) -> GatewayError {
        GatewayError(status: 401, code: "UNAUTHENTICATED", message: message, headers: ["WWW-Authenticate": "Bearer realm=\"gqlgate\""])
    }

    /// 502 `UPSTREAM_AUTH_FAILED`: no upstream credentials to send (token endpoint or token file failing).
    public static func upstreamAuthFailed(_ message: String) -> GatewayError {
        GatewayError(status: 502, code: "UPSTREAM_AUTH_FAILED", message: message)
    }

    public static func notFound(_ path: String) -> GatewayError {
        GatewayError(status: 404, code: "NOT_FOUND", message: "No endpoint at \(path).")
    }

    public static func internalError(_ message: String) -> GatewayError {
        GatewayError(status: 500, code: "INTERNAL_SERVER_ERROR", message: message)
    }
}

extension GatewayError {
    /// The answer `error` becomes: the one it knows (`GatewayErrorConvertible`), else a 500.
    package init(answering error: any Error) {
        self = (error as? any GatewayErrorConvertible)?.gatewayError ?? .internalError("The gateway failed: \(error)")
    }

    /// A pipeline that ended without a result.
    package static let noResult = GatewayError.upstreamUnavailable("The upstream sent no result.")
}

/// An error that knows which gateway answer it becomes.
public protocol GatewayErrorConvertible: Error {
    var gatewayError: GatewayError { get }
}

extension GatewayError: GatewayErrorConvertible {
    public var gatewayError: GatewayError { self }
}
