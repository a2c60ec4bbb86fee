import GQLGateExchanges
import GQLGateHTTPServer
import GQLGatePipeline

/// Answers fresh cache hits on the server thread, without a task or a loop:
/// the request is decoded and run through the synchronous parts of the
/// stages before the cache — APQ resolution, the document (only when its
/// text was analysed already: no parsing here), the method rules (a query
/// with one answer passes them) and the query limits — and the cache gives
/// its fresh answer exactly as `CacheExchange` would. Anything else (a miss,
/// a stale answer, an error to report, a document not seen yet, a streaming
/// `Accept`) returns nil and goes through the pipeline as usual. A request
/// repeated byte for byte skips all but the cache look-up
/// (`ResolvedHitRequests`).
struct CacheHitShortcut: Sendable {
    /// `apq.enabled`'s exchange, when on.
    let apq: APQExchange?
    let documents: DocumentExchange
    let limits: QueryLimitsExchange
    let cache: CacheExchange
    /// `cache.vary_headers`.
    let varyHeaders: [String]
    let resolvedRequests = ResolvedHitRequests()

    /// The cached answer to `request` (without `X-Request-Id`) and what the
    /// access line says of it; nil when the pipeline must answer. A request
    /// decoded here keeps its `DecodedGraphQLRequest` as its attachment, so
    /// the pipeline does not decode the body again.
    func answer(_ request: ServerRequest) -> (GraphQLResponse, RequestTrace.Snapshot)? {
        guard ResultDelivery.requested(byAccept: request.headers["accept"]) == .single else { return nil }
        let fingerprint = ResolvedHitRequests.Fingerprint(request, varyHeaders: varyHeaders)
        if let known = resolvedRequests.resolved(fingerprint),
           let hit = cache.freshHit(key: known.key, headers: request.headers) {
            return (hit, known.trace)
        }
        guard let (sent, transport) = try? GraphQLHTTPDecoder.decode(
            method: request.method, contentType: request.headers["content-type"], queryItems: request.queryItems, body: request.body)
        else { return nil }
        request.attachment = DecodedGraphQLRequest(request: sent, transport: transport)
        var graphQLRequest = sent
        if let apq {
            guard let resolved = try? apq.resolved(graphQLRequest) else { return nil }
            graphQLRequest = resolved
        }
        let decoded = Operation(request: graphQLRequest, clientTransport: transport, headers: request.headers, requestID: "")
        guard let operation = documents.analysedFromCache(decoded), let selected = operation.selected, selected.kind == .query,
              (try? limits.check(selected.shape)) != nil
        else { return nil }
        let key = cache.requestKey(for: operation)
        guard let hit = cache.freshHit(key: key, headers: request.headers) else { return nil }
        var trace = RequestTrace.Snapshot()
        trace.kind = selected.kind
        trace.operationName = selected.name
        if sent.query != nil { resolvedRequests.remember(.init(key: key, trace: trace), for: fingerprint) }
        return (hit, trace)
    }
}

/// A request body already decoded on the server thread (see `CacheHitShortcut`).
struct DecodedGraphQLRequest: Sendable {
    let request: GraphQLRequest
    let transport: ClientTransport
}
