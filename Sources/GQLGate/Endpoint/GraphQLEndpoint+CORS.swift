@_spi(GQLGateInternals) import GQLGateCore
import GQLGateHTTPServer
@_spi(GQLGateInternals) import GQLGatePipeline

extension GraphQLEndpoint {
    /// The answer to a CORS preflight (`OPTIONS` with
    /// `Access-Control-Request-Method`) on the GraphQL path, made here, never
    /// upstream: 204 with what the origin may do, or 403
    /// `ORIGIN_NOT_ALLOWED` (always, when `cors` is off).
    func preflight(_ request: ServerRequest, cors: CORSPolicy?) -> ServerResponse {
        let origin = request.headers["origin"]
        guard let fields = cors?.preflightFields(origin: origin, requestedHeaders: request.headers["access-control-request-headers"]) else {
            return refuse(request, .originNotAllowed(origin))
        }
        let requestID = clientRequestID(request) ?? requestIDs.next()
        var headers = fields
        Self.stamp(&headers, requestID: requestID)
        requestLog.record(status: 204, requestID: requestID, startedAt: GatewayClock.system.monotonicNanoseconds(), facts: nil)
        return ServerResponse(status: 204, headers: headers)
    }

    /// Gives a request the endpoint refuses before `answer(_:)` (a body too
    /// large, refused framing) the CORS fields its origin gets, so a page
    /// can read why.
    func allowOrigin(_ request: ServerRequest) {
        let pipeline = generations.current
        guard request.path == pipeline.path, let cors = pipeline.cors, let fields = cors.answerFields(origin: request.headers["origin"]) else { return }
        request.addToEveryAnswer(fields)
    }
}
