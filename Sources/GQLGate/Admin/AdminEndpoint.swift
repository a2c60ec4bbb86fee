import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
import GQLGateHTTPServer
import GQLGatePipeline
import Logging

/// The admin listener's delegate (`admin.listen`): `POST /cache/purge` and
/// `GET /schema`, for operators, never on the client port. With
/// `admin.token_file` every request needs `Authorization: Bearer <token>`
/// (else 401, whatever the path). A purge runs as a task preferring a gateway
/// loop (the store may ask Redis); everything else is answered on the server
/// thread. Answers are JSON (the schema: text) with `Cache-Control: no-store`.
final class AdminEndpoint: HTTPServerDelegate {
    /// What a request taken for later needs.
    enum Pending {
        /// Purge the generation's cache.
        case purge(AdminPurgeRequest, GatewayGeneration)
    }

    static let purgePath = "/cache/purge"
    static let schemaPath = "/schema"
    /// The largest request body: a purge lists names, not documents.
    static let maxBodyBytes = 64 << 10

    let generations: CurrentGeneration
    let loops: EventLoopGroup
    /// Purges taken and not answered yet: drained with the client requests.
    let inFlight = InFlightRequests()
    private let logger: Logger

    init(generations: CurrentGeneration, loops: EventLoopGroup, logger: Logger) {
        self.generations = generations
        self.loops = loops
        self.logger = logger
    }

    func answer(_ request: ServerRequest) -> ServerAnswer {
        let pipeline = generations.current
        if let token = pipeline.adminToken, !token.accepts(request.headers) {
            return .now(Self.refusal(Self.unauthenticated))
        }
        switch request.path {
        case Self.purgePath:
            guard request.method == "POST" else {
                return .now(Self.refusal(.methodNotAllowed(
                    "Method \(request.method) is not supported at \(Self.purgePath); use POST.", allow: "POST")))
            }
            do {
                let purge = try AdminPurgeRequest.decode(contentType: request.headers["content-type"], body: request.body)
                return .later { self.dispatch(request, .purge(purge, pipeline)) }
            } catch {
                return .now(Self.refusal(error))
            }
        case Self.schemaPath:
            guard request.method == "GET" || request.method == "HEAD" else {
                return .now(Self.refusal(.methodNotAllowed(
                    "Method \(request.method) is not supported at \(Self.schemaPath); use GET.", allow: "GET, HEAD")))
            }
            return .now(Self.schemaAnswer(pipeline))
        default:
            return .now(Self.refusal(GatewayError(
                status: 404, code: "NOT_FOUND",
                message: "No admin endpoint at \(request.path); there are POST \(Self.purgePath) and GET \(Self.schemaPath).")))
        }
    }

    private func dispatch(_ request: ServerRequest, _ pending: Pending) {
        switch pending {
        case .purge(let purge, let pipeline):
            inFlight.start(request, on: loops.next()) { await self.purge(purge, in: pipeline) }
        }
    }

    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse {
        Self.refusal(GatewayError(status: 413, code: "PAYLOAD_TOO_LARGE", message: "Request body is larger than \(Self.maxBodyBytes) bytes."))
    }

    func refuseFraming(_ request: ServerRequest, _ refusal: FramingRefusal) -> ServerResponse {
        Self.refusal(.framingRefused(refusal))
    }

    /// Answers every purge still running with 503 `SHUTTING_DOWN` (and any later
    /// one too); their tasks are cancelled. Returns how many were running.
    func closeInFlight() -> Int {
        inFlight.closeAll { _ in Self.refusal(.shuttingDown) }
    }

    /// Purges what `request` selects from the generation's cache: `{"purged": N}`,
    /// 0 while the cache is off. Counted in `gqlgate_cache_invalidations_total{source="admin"}`
    /// and logged.
    private func purge(_ request: AdminPurgeRequest, in pipeline: GatewayGeneration) async -> ServerResponse {
        var purged = 0
        if let store = pipeline.cache {
            purged = await store.purge(request.purge, now: store.clock.now())
            pipeline.recorder.record(.cacheInvalidated(.admin))
        }
        logger.info("cache purged", metadata: [
            "source": "admin", "purged": .stringConvertible(purged), "soft": .stringConvertible(request.soft),
            "all": .stringConvertible(request.all), "types": .array(request.types.map { .string($0) }),
            "entities": .array(request.entities.map { .string($0) }), "operations": .array(request.operations.map { .string($0) }),
            "cache": .string(pipeline.cache == nil ? "off" : pipeline.config.cache.backend.rawValue),
        ])
        return ServerResponse(status: 200, headers: Self.jsonHeaders, body: Bytes("{\"purged\":\(purged)}"))
    }

    /// The SDL of the schema held, or 404 while none is.
    static func schemaAnswer(_ pipeline: GatewayGeneration) -> ServerResponse {
        guard let schema = pipeline.schema else {
            return refusal(GatewayError(status: 404, code: "NOT_FOUND",
                                        message: "No schema is held: schema.source is none (gqlgate is schema-blind)."))
        }
        guard let loaded = schema.current else {
            let source = pipeline.config.schema.effectiveSource?.rawValue ?? "none"
            return refusal(GatewayError(status: 404, code: "NOT_FOUND",
                                        message: "No schema is held yet: it has not been loaded from its source (\(source))."))
        }
        return ServerResponse(status: 200, headers: [
            "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "ETag": "\"\(loaded.sdlSHA256)\"",
        ], body: Bytes(loaded.sdl))
    }

    /// 401 for a request without the admin token.
    static let unauthenticated = GatewayError(
        status: 401, code: "UNAUTHENTICATED", message: "The admin API needs Authorization: Bearer with the token of admin.token_file.",
        headers: ["WWW-Authenticate": "Bearer realm=\"gqlgate-admin\""])

    private static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]

    /// `error` as a GraphQL-style JSON answer.
    static func refusal(_ error: GatewayError) -> ServerResponse {
        var headers = error.headers
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Cache-Control", value: "no-store")
        return ServerResponse(status: error.status, headers: headers, body: Bytes(error.jsonBody()))
    }
}
