import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPServer
import GQLGatePipeline

/// The server's delegate: answers health checks and bad methods on the
/// server thread, and runs GraphQL requests through the exchange pipeline as
/// tasks on the gateway loops.
final class GraphQLEndpoint: HTTPServerDelegate {
    private let path: String
    private let chain: ExchangeChain
    private let loops: EventLoopGroup
    private let maxBodyBytes: Int
    private let clientAuth: ClientAuthenticator?
    private let requestIDs = RequestIDGenerator()
    private let health = StaticResponse(status: 200, headers: ["Content-Type": "application/json"], body: Bytes("{\"status\":\"ok\"}"))

    init(path: String, chain: ExchangeChain, loops: EventLoopGroup, maxBodyBytes: Int, clientAuth: ClientAuthenticator?) {
        self.clientAuth = clientAuth
        self.path = path
        self.chain = chain
        self.loops = loops
        self.maxBodyBytes = maxBodyBytes
    }

    func answer(_ request: ServerRequest) -> ServerResponse? {
        if request.path == path {
            if let name = request.headers.firstFieldWithUnsafeValue {
                return gatewayAnswer(.badRequest("Header \(name) has a CR, LF or NUL in its value."), for: request)
            }
            if let clientAuth, !clientAuth.authenticate(request.headers) {
                return gatewayAnswer(ClientAuthenticator.rejection, for: request)
            }
            if request.method == "GET" || request.method == "POST" { return nil }
            return gatewayAnswer(.methodNotAllowed("Method \(request.method) is not supported; use GET or POST.", allow: "GET, POST"), for: request)
        }
        if request.path == "/healthz", request.method == "GET" || request.method == "HEAD" {
            return ServerResponse(health)
        }
        return gatewayAnswer(.notFound(request.path), for: request)
    }

    func dispatch(_ request: ServerRequest) {
        Task(executorPreference: loops.next()) {
            request.respond(await self.process(request))
        }
    }

    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse {
        gatewayAnswer(.payloadTooLarge(limit: maxBodyBytes), for: request)
    }

    /// Decodes, runs the pipeline, and turns the first result (or the error) into the answer.
    func process(_ request: ServerRequest) async -> ServerResponse {
        let requestID = clientRequestID(request) ?? requestIDs.next()
        do {
            let (graphQLRequest, transport) = try GraphQLHTTPDecoder.decode(
                method: request.method, contentType: request.headers["content-type"], queryItems: request.queryItems,
                body: request.body)
            let operation = Operation(
                request: graphQLRequest, clientTransport: transport, headers: request.headers, requestID: requestID,
                originalBody: transport == .httpPost ? request.body : nil)
            guard let result = try await chain.run(operation).first() else {
                return serverResponse(GatewayError.upstreamUnavailable("The upstream sent no result.").response(), requestID: requestID)
            }
            return serverResponse(result, requestID: requestID)
        } catch let error as any GatewayErrorConvertible {
            return serverResponse(error.gatewayError.response(), requestID: requestID)
        } catch {
            return serverResponse(GatewayError.internalError("The gateway failed: \(error)").response(), requestID: requestID)
        }
    }

    private func serverResponse(_ result: GraphQLResponse, requestID: String) -> ServerResponse {
        var headers = result.headers
        if !headers.contains("x-request-id") { headers.add(name: "X-Request-Id", value: requestID) }
        return ServerResponse(status: result.status, headers: headers, body: result.body)
    }

    private func gatewayAnswer(_ error: GatewayError, for request: ServerRequest) -> ServerResponse {
        serverResponse(error.response(), requestID: clientRequestID(request) ?? requestIDs.next())
    }

    /// The client's `X-Request-Id`, when it is safe to echo.
    private func clientRequestID(_ request: ServerRequest) -> String? {
        guard let id = request.headers["x-request-id"], id.isSafeHeaderValue else { return nil }
        return id
    }
}
