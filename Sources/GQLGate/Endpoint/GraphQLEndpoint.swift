@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
import GQLGateHTTPServer
import GQLGateMetrics
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateSubscriptions
import Logging

/// The server's delegate: answers bad methods and the operator endpoints on
/// the server thread, and runs GraphQL requests through the current exchange
/// pipeline as tasks on the gateway loops.
final class GraphQLEndpoint: HTTPServerDelegate {
    let generations: CurrentGeneration
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

    init(generations: CurrentGeneration, loops: EventLoopGroup, maxBodyBytes: Int, operations: OperationsEndpoints, requestLog: RequestLog,
         inFlight: InFlightRequests, logger: Logger) {
        self.logger = logger
        self.generations = generations
        self.loops = loops
        self.maxBodyBytes = maxBodyBytes
        self.operations = operations
        self.requestLog = requestLog
        self.inFlight = inFlight
        webSockets = WebSocketEndpoint(generations: generations, loops: loops, requestIDs: requestIDs)
    }

    func answer(_ request: ServerRequest) -> ServerAnswer {
        let pipeline = generations.current
        if request.path == pipeline.path {
            if let cors = pipeline.cors, let fields = cors.answerFields(origin: request.headers["origin"]) {
                request.addToEveryAnswer(fields)
            }
            // A request with the bytes of an earlier hit passed every check below then and would again,
            // but the client key's: the keys file is read again as it changes.
            let replayKey = pipeline.hitReplay != nil && !inFlight.isClosed ? ReplayKey(request) : nil
            var keyAccepted: Bool?  // the client key's check, once made here
            if let replayKey, let replay = pipeline.hitReplay {
                keyAccepted = pipeline.clientAuth?.authenticate(request.headers)
                if keyAccepted != false, let response = replayed(replayKey, replay, request: request, pipeline: pipeline) {
                    return .now(response)
                }
            }
            if request.method == "OPTIONS", request.headers.contains("access-control-request-method") {
                return .now(preflight(request, cors: pipeline.cors))
            }
            if let name = request.headers.firstRefusedField(isPassedOn: pipeline.isPassedOn) {
                return .now(refuse(request, .badRequest("Header \(name) has a control character in its value.")))
            }
            if WebSocketEndpoint.isUpgrade(request) {
                if let cors = pipeline.cors, !cors.allowsUpgrade(origin: request.headers["origin"]) {
                    return .now(refuse(request, .originNotAllowed(request.headers["origin"])))
                }
                let response = webSockets.answer(request, pipeline: pipeline)
                requestLog.record(status: response.status, requestID: nil, startedAt: GatewayClock.system.monotonicNanoseconds(), facts: nil,
                                  clientCertificate: request.clientCertificateSubject)
                return .now(response)
            }
            if let csrf = pipeline.csrf, !csrf.allows(request.headers) {
                return .now(refuse(request, .csrf(requiredHeaders: csrf.requiredHeaders)))
            }
            if let clientAuth = pipeline.clientAuth, !(keyAccepted ?? clientAuth.authenticate(request.headers)) {
                return .now(refuse(request, ClientAuthenticator.rejection))
            }
            if request.method == "GET" || request.method == "POST" { return graphQL(request, pipeline: pipeline, replayKey: replayKey) }
            return .now(refuse(request, .methodNotAllowed("Method \(request.method) is not supported; use GET or POST.", allow: "GET, POST")))
        }
        switch operations.route(request, metricsEnabled: pipeline.config.metrics.enabled) {
        case .answer(let response): return .now(response)
        case .probe: return .later { self.dispatch(request, .readiness(pipeline.readinessProbe)) }
        case nil: return .now(refuse(request, .notFound(request.path)))
        }
    }

    /// Runs what `answer` took on a loop; called on the server thread once the connection is suspended.
    private func dispatch(_ request: ServerRequest, _ pending: PendingRequest) {
        switch pending {
        case .graphQL(let context):
            inFlight.start(request, on: loops.next()) { await self.process(context) }
        case .readiness(let probe):
            inFlight.start(request, on: loops.next()) { await self.operations.probeAnswer(probe) }
        case .shuttingDown:
            inFlight.start(request, on: loops.next()) { self.refuse(request, .shuttingDown) }
        }
    }

    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse {
        allowOrigin(request)
        return refuse(request, .payloadTooLarge(limit: maxBodyBytes))
    }

    func refuseFraming(_ request: ServerRequest, _ refusal: FramingRefusal) -> ServerResponse {
        allowOrigin(request)
        return refuse(request, .framingRefused(refusal))
    }

    /// Every path needs a client certificate but the probes (`/healthz`,
    /// `/readyz`), which orchestrators call without one and which tell nothing.
    func refuseClientCertificate(_ request: ServerRequest) -> ServerResponse? {
        guard !OperationsEndpoints.isProbe(request.path) else { return nil }
        allowOrigin(request)
        return refuse(request, .clientCertificateRequired)
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
        let cutShort = inFlight.closeAll { [self] request in refuse(request, .shuttingDown) }
        streams.completeAll()
        return cutShort
    }

    /// A GET or POST on the GraphQL path: its media type negotiated (406
    /// when `Accept` admits none), decoded, then run through the
    /// pipeline's inline head on the server thread — answered there when a
    /// stage answers (a cache hit, a refused operation), else taken, to go on
    /// from where the head stopped on a loop. A streamed answer (SSE,
    /// multipart) runs the whole pipeline on a loop; while a drain answers
    /// every request with 503, nothing runs. Every JSON answer is in the
    /// negotiated media type. The pipeline's recorder records
    /// how each request was answered, whichever way (`GatewayRecorder`).
    private func graphQL(_ request: ServerRequest, pipeline: GatewayGeneration, replayKey: ReplayKey?) -> ServerAnswer {
        guard !inFlight.isClosed else { return .later { self.dispatch(request, .shuttingDown) } }
        let requestID = clientRequestID(request) ?? requestIDs.next()
        let accept = request.headers["accept"]
        guard let mediaType = ResponseMediaType.negotiated(byAccept: accept) else {
            return .now(refuse(request, .noAcceptableMediaType))
        }
        let facts = OperationRecord(
            startedAt: GatewayClock.system.monotonicNanoseconds(), clientCertificate: request.clientCertificateSubject, recorder: pipeline.recorder)
        let sent: GraphQLRequest, transport: ClientTransport
        do {
            (sent, transport) = try GraphQLHTTPDecoder.decode(
                method: request.method, contentType: request.headers["content-type"], queryItems: request.queryItems, body: request.body)
        } catch {
            let response = errorResponse(error, requestID: requestID, mediaType: mediaType)
            requestLog.record(status: response.status, requestID: requestID, startedAt: facts.startedAt, facts: nil,
                              clientCertificate: request.clientCertificateSubject)
            return .now(response)
        }
        let delivery = ResultDelivery.requested(byAccept: accept)
        var operation = Operation(
            request: sent, clientTransport: transport, delivery: delivery, headers: request.headers, requestID: requestID,
            originalBody: transport == .httpPost ? request.body : nil, clientID: pipeline.clientID(request), facts: facts)
        operation.responseMediaType = mediaType
        operation.asksForCacheHitTicket = replayKey != nil
        // An incremental answer is one answer in parts: a client that asked for a stream (SSE, multipart subscriptions) gets none.
        operation.acceptsIncrementalDelivery = delivery == .single && IncrementalDelivery.isAccepted(by: accept)
        let stream = HTTPStreamFormat(delivery, keepAlive: pipeline.config.subscriptions.keepalive)
        var position = ExchangeChain.Position.start
        if stream == nil {
            do {
                switch try pipeline.chain.runAtOnce(&operation) {
                case .answered(let result):
                    let answer = result.delivered(as: mediaType)
                    pipeline.recorder.answeredAtOnce(operation, .success(answer))
                    let response = serverResponse(answer, requestID: requestID, compression: pipeline.compression, requestHeaders: request.headers)
                    if let replayKey, let replay = pipeline.hitReplay, let ticket = operation.cacheHit, let facts = operation.facts {
                        replay.remember(response, for: replayKey, ticket: ticket, facts: facts.snapshot)
                    }
                    return .now(response)
                case .goOn(let next): position = next
                }
            } catch {
                pipeline.recorder.answeredAtOnce(operation, .failure(error))
                return .now(errorResponse(error, requestID: requestID, mediaType: mediaType))
            }
        }
        let context = RequestContext(pipeline: pipeline, operation: consume operation, position: position, stream: stream)
        return .later { self.dispatch(request, .graphQL(context)) }
    }

    /// The answer the hit replay remembers for `key`, given again to
    /// `request` and recorded as the first request's was: its record keeps
    /// what the first one's kept, and the recorder is told the same facts.
    /// Nil when it remembers none that still holds.
    private func replayed(_ key: ReplayKey, _ replay: HitReplay, request: ServerRequest, pipeline: GatewayGeneration) -> ServerResponse? {
        var requestID = ""
        guard let (response, facts) = replay.answer(for: key, requestID: {
            requestID = clientRequestID(request) ?? requestIDs.next()
            return requestID
        }) else { return nil }
        let record = OperationRecord(startedAt: GatewayClock.system.monotonicNanoseconds(), clientCertificate: request.clientCertificateSubject,
                                     recorder: pipeline.recorder, kept: facts.kept)
        record.retell(facts.told)
        requestLog.record(status: response.status, requestID: requestID, startedAt: record.startedAt, facts: record,
                          clientCertificate: request.clientCertificateSubject)
        return response
    }

    /// Runs the rest of the pipeline and turns the first result (or the
    /// error) into the answer in the client's media type, or streams the
    /// results when `Accept` asks for SSE or multipart subscriptions, or when
    /// the upstream answered in parts (`@defer`, `@stream`).
    func process(_ context: RequestContext) async -> ServerResponse {
        let requestID = context.operation.requestID
        let mediaType = context.operation.responseMediaType
        do {
            let pipeline = context.pipeline
            if let format = context.stream {
                return try await streamedAnswer(context.operation, format: format, pipeline: pipeline)
            }
            let results = try await pipeline.recorder.watch(context.operation) { operation in
                let first = try await pipeline.chain.resume(operation, at: context.position).first() ?? GatewayError.noResult.response(as: mediaType)
                return .single(first.delivered(as: mediaType))
            }
            let result = try await results.first() ?? GatewayError.noResult.response(as: mediaType)
            if let rest = result.subsequentResults { return incrementalAnswer(result, rest: rest, requestID: requestID) }
            return serverResponse(result, requestID: requestID, compression: context.pipeline.compression, requestHeaders: context.operation.headers)
        } catch {
            return errorResponse(error, requestID: requestID, mediaType: mediaType)
        }
    }

    /// The answer in `mediaType` to a pipeline that threw `error`.
    private func errorResponse(_ error: any Error, requestID: String, mediaType: ResponseMediaType) -> ServerResponse {
        serverResponse(GatewayError(answering: error).response(as: mediaType), requestID: requestID)
    }

    /// `result` as the answer sent, with the request's `X-Request-Id`: the
    /// one place an HTTP answer gets it (an upstream's own, or the one a
    /// shared or cached answer was made with, is replaced).
    func serverResponse(_ result: GraphQLResponse, requestID: String) -> ServerResponse {
        var headers = result.headers
        Self.stamp(&headers, requestID: requestID)
        return ServerResponse(status: result.status, headers: headers, body: result.body)
    }

    /// `result` as the answer sent to a client whose request had
    /// `requestHeaders`, compressed as `compression` says when it is on.
    func serverResponse(_ result: GraphQLResponse, requestID: String, compression: AnswerCompression?,
                        requestHeaders: HTTPHeaders) -> ServerResponse {
        guard let compression else { return serverResponse(result, requestID: requestID) }
        var (headers, body) = compression.encode(result, acceptEncoding: requestHeaders["accept-encoding"])
        Self.stamp(&headers, requestID: requestID)
        return ServerResponse(status: result.status, headers: headers, body: body)
    }

    /// Sets `X-Request-Id` in an answer's `headers`.
    static func stamp(_ headers: inout HTTPHeaders, requestID: String) {
        headers.replaceOrAdd(name: "X-Request-Id", value: requestID)
    }

    /// The endpoint's own answer to `request`, `error`, in the media type
    /// its `Accept` asks for, recorded in the request log.
    func refuse(_ request: ServerRequest, _ error: GatewayError) -> ServerResponse {
        let requestID = clientRequestID(request) ?? requestIDs.next()
        let response = serverResponse(error.response(as: .refusing(request)), requestID: requestID)
        requestLog.record(status: response.status, requestID: requestID, startedAt: GatewayClock.system.monotonicNanoseconds(), facts: nil,
                          clientCertificate: request.clientCertificateSubject)
        return response
    }

    /// The client's `X-Request-Id`, when it is kept (1 to 200 visible ASCII characters).
    func clientRequestID(_ request: ServerRequest) -> String? {
        guard let id = request.headerValue("x-request-id"), id.isAcceptableRequestID else { return nil }
        return id
    }
}
