import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
import GQLGateHTTPServer
import GQLGateMetrics
import GQLGatePipeline
import Logging

/// The server's delegate: answers bad methods and the operator endpoints on
/// the server thread, and runs GraphQL requests through the current exchange
/// pipeline as tasks on the gateway loops.
final class GraphQLEndpoint: HTTPServerDelegate {
    private let pipelines: PipelineSlot
    let loops: EventLoopGroup
    private let maxBodyBytes: Int
    let requestIDs = RequestIDGenerator()
    private let operations: OperationsEndpoints
    let requestLog: RequestLog
    let inFlight: InFlightRequests
    /// Client WebSockets (subscriptions and any operation) on the GraphQL path.
    let webSockets: WebSocketEndpoint
    /// Streamed answers (SSE, multipart) still being written.
    let streams = OpenStreams()
    private let logger: Logger

    init(pipelines: PipelineSlot, loops: EventLoopGroup, maxBodyBytes: Int, operations: OperationsEndpoints, requestLog: RequestLog,
         inFlight: InFlightRequests, metrics: GatewayMetrics, logger: Logger) {
        self.logger = logger
        self.pipelines = pipelines
        self.loops = loops
        self.maxBodyBytes = maxBodyBytes
        self.operations = operations
        self.requestLog = requestLog
        self.inFlight = inFlight
        webSockets = WebSocketEndpoint(pipelines: pipelines, loops: loops, metrics: metrics, requestIDs: requestIDs)
    }

    func answer(_ request: ServerRequest) -> ServerResponse? {
        let pipeline = pipelines.current
        if request.path == pipeline.path {
            if let name = request.headers.firstRefusedField(isPassedOn: pipeline.isPassedOn) {
                return logged(gatewayAnswer(.badRequest("Header \(name) has a control character in its value."), for: request))
            }
            if WebSocketEndpoint.isUpgrade(request) { return logged(webSockets.answer(request, pipeline: pipeline)) }
            if let clientAuth = pipeline.clientAuth, !clientAuth.authenticate(request.headers) {
                return logged(gatewayAnswer(ClientAuthenticator.rejection, for: request))
            }
            if request.method == "GET" || request.method == "POST" { return cacheHit(request, pipeline: pipeline) }
            return logged(gatewayAnswer(.methodNotAllowed("Method \(request.method) is not supported; use GET or POST.", allow: "GET, POST"), for: request))
        }
        switch operations.route(request, metricsEnabled: pipeline.config.metrics.enabled) {
        case .answer(let response): return response
        case .probe: return nil
        case nil: return logged(gatewayAnswer(.notFound(request.path), for: request))
        }
    }

    func dispatch(_ request: ServerRequest) {
        if request.path == OperationsEndpoints.readinessPath {
            let probe = pipelines.current.readinessProbe
            inFlight.start(request, on: loops.next()) { await self.operations.probeAnswer(probe) }
            return
        }
        let startedAt = MonotonicClock.nanoseconds()
        let trace = RequestTrace()
        inFlight.start(request, on: loops.next()) {
            await self.process(request, trace: trace)
        } answered: { response in
            self.requestLog.record(response, startedAt: startedAt, trace: trace.snapshot)
        }
    }

    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse {
        logged(gatewayAnswer(.payloadTooLarge(limit: maxBodyBytes), for: request))
    }

    func refuseFraming(_ request: ServerRequest, _ refusal: FramingRefusal) -> ServerResponse {
        logged(gatewayAnswer(.framingRefused(refusal), for: request))
    }

    func droppedAnswerFields(_ request: ServerRequest, names: [String]) {
        logger.warning("answer header fields dropped", metadata: [
            "fields": .string(names.joined(separator: ", ")), "path": .string(request.path),
            "reason": "with the request's header block they do not fit in server.max_header_bytes",
        ])
    }

    /// Answers every request still in flight with 503 `SHUTTING_DOWN`, and any
    /// that arrives later too; ends every streamed answer. Returns how many
    /// requests were in flight.
    func closeInFlight() -> Int {
        let cutShort = inFlight.closeAll { [self] request in gatewayAnswer(.shuttingDown, for: request) }
        streams.completeAll()
        return cutShort
    }

    /// Decodes, runs the pipeline, and turns the first result (or the error)
    /// into the answer, or streams the results when `Accept` asks for SSE or multipart.
    /// The operation carries `trace`, which the stages fill in for the access log.
    func process(_ request: ServerRequest, trace: RequestTrace) async -> ServerResponse {
        let requestID = clientRequestID(request) ?? requestIDs.next()
        do {
            let (graphQLRequest, transport) = try Self.decode(request)
            let pipeline = pipelines.current
            let delivery = ResultDelivery.requested(byAccept: request.headers["accept"])
            let operation = Operation(
                request: graphQLRequest, clientTransport: transport, delivery: delivery, headers: request.headers, requestID: requestID,
                originalBody: transport == .httpPost ? request.body : nil, trace: trace)
            if let format = HTTPStreamFormat(delivery, keepAlive: pipeline.config.subscriptions.keepalive) {
                return try await streamedAnswer(operation, format: format, chain: pipeline.chain)
            }
            guard let result = try await pipeline.chain.run(consume operation).first() else {
                return serverResponse(GatewayError.upstreamUnavailable("The upstream sent no result.").response(), requestID: requestID)
            }
            return serverResponse(result, requestID: requestID)
        } catch let error as any GatewayErrorConvertible {
            return serverResponse(error.gatewayError.response(), requestID: requestID)
        } catch {
            return serverResponse(GatewayError.internalError("The gateway failed: \(error)").response(), requestID: requestID)
        }
    }

    /// The request's GraphQL parameters: decoded once, on the server thread
    /// when the cache-hit shortcut looked at them, else here.
    private static func decode(_ request: ServerRequest) throws(GatewayError) -> (GraphQLRequest, ClientTransport) {
        if let decoded = request.attachment as? DecodedGraphQLRequest { return (decoded.request, decoded.transport) }
        return try GraphQLHTTPDecoder.decode(
            method: request.method, contentType: request.headers["content-type"], queryItems: request.queryItems, body: request.body)
    }

    func serverResponse(_ result: GraphQLResponse, requestID: String) -> ServerResponse {
        var headers = result.headers
        if !headers.contains("x-request-id") { headers.add(name: "X-Request-Id", value: requestID) }
        return ServerResponse(status: result.status, headers: headers, body: result.body)
    }

    private func gatewayAnswer(_ error: GatewayError, for request: ServerRequest) -> ServerResponse {
        serverResponse(error.response(), requestID: clientRequestID(request) ?? requestIDs.next())
    }

    /// The client's `X-Request-Id`, when it is kept (1 to 200 visible ASCII characters).
    func clientRequestID(_ request: ServerRequest) -> String? {
        guard let id = request.headers["x-request-id"], id.isAcceptableRequestID else { return nil }
        return id
    }

    /// Records an answer made on the server thread (metrics, access line).
    private func logged(_ response: ServerResponse) -> ServerResponse {
        requestLog.record(response, startedAt: MonotonicClock.nanoseconds(), trace: nil)
        return response
    }
}
