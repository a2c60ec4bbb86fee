import GQLGateEventLoop
import GQLGateHTTPServer

extension GraphQLEndpoint {
    /// A fresh cache hit for `request`, answered on the server thread with
    /// its `X-Request-Id`, counted and logged like any other answer (see
    /// `CacheHitShortcut`); nil when the pipeline must answer, and always
    /// while a drain answers every request with 503.
    func cacheHit(_ request: ServerRequest, pipeline: GatewayPipeline) -> ServerResponse? {
        guard let shortcut = pipeline.cacheHits, !inFlight.isClosed else { return nil }
        let startedAt = MonotonicClock.nanoseconds()
        guard let (hit, trace) = shortcut.answer(request) else { return nil }
        let response = serverResponse(hit, requestID: clientRequestID(request) ?? requestIDs.next())
        requestLog.record(response, startedAt: startedAt, trace: trace)
        return response
    }
}
