import Foundation
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateHTTPServer
@_spi(GQLGateInternals) import GQLGatePipeline
import GraphQL

/// Serves the demo schema over HTTP, following GraphQL over HTTP:
/// `POST /graphql` with a JSON body `{query, operationName, variables}`,
/// `GET /graphql?query=…&operationName=…&variables=…` (queries only), and
/// `GET /healthz`. Requests are answered with `application/json`: 200 once the
/// document ran, 400 when it or the request could not be understood.
/// A `GET /graphql` that asks for a WebSocket upgrade goes to `webSockets`.
final class DemoHTTPHandler: HTTPServerDelegate {
    private struct Admission {
        var draining = false
        var inFlight = 0
    }

    private static let healthy = StaticResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Bytes("ok\n"))
    private static let notFound = StaticResponse(status: 404, headers: ["Content-Type": "text/plain"], body: Bytes("not found\n"))
    private static let unavailable = StaticResponse(
        status: 503, headers: ["Content-Type": "text/plain"], body: Bytes("shutting down\n"))

    private let schema: DemoSchema
    private let webSockets: DemoWebSocketServer
    private let admission = Lock(Admission())
    /// Signalled when the last request taken is answered.
    private let answeredAll = ChangeSignal()

    init(schema: DemoSchema, webSockets: DemoWebSocketServer) {
        self.schema = schema
        self.webSockets = webSockets
    }

    /// Requests taken for execution and not yet answered.
    var inFlight: Int {
        admission.withLock { $0.inFlight }
    }

    /// Waits until every request taken is answered (true) or `deadline`
    /// (monotonic nanoseconds, `GatewayClock`) comes (false).
    func waitUntilAnswered(before deadline: UInt64) -> Bool {
        answeredAll.wait(until: { inFlight == 0 }, deadline: deadline)
    }

    /// From now on, GraphQL requests and upgrades are answered 503 at once instead of being taken.
    func beginDraining() {
        admission.withLock { $0.draining = true }
    }

    func answer(_ request: ServerRequest) -> ServerAnswer {
        immediateAnswer(request).map { .now($0) } ?? .later { self.dispatch(request) }
    }

    /// The answer given on the server thread; nil takes the request.
    private func immediateAnswer(_ request: ServerRequest) -> ServerResponse? {
        switch request.path {
        case "/healthz":
            guard request.method == "GET" || request.method == "HEAD" else {
                return Self.methodNotAllowed(allow: "GET, HEAD")
            }
            return ServerResponse(Self.healthy)
        case "/graphql":
            guard request.method == "GET" || request.method == "POST" else {
                return Self.methodNotAllowed(allow: "GET, POST")
            }
            if request.headers.contains("Upgrade") {
                return admission.withLock { $0.draining } ? ServerResponse(Self.unavailable) : webSockets.answerUpgrade(request)
            }
            let admitted = admission.withLock { admission in
                guard !admission.draining else { return false }
                admission.inFlight += 1
                return true
            }
            return admitted ? nil : ServerResponse(Self.unavailable)
        default:
            return ServerResponse(Self.notFound)
        }
    }

    private func dispatch(_ request: ServerRequest) {
        Task {
            request.respond(await response(to: request))
            let none = admission.withLock { admission in
                admission.inFlight -= 1
                return admission.inFlight == 0
            }
            if none { answeredAll.signal() }
        }
    }

    func payloadTooLarge(_: ServerRequest) -> ServerResponse {
        Self.json(status: 413, GraphQLResult(errors: [GraphQLError(message: "Request body too large.")]))
    }

    private func response(to request: ServerRequest) async -> ServerResponse {
        let sent: GQLGatePipeline.GraphQLRequest
        do {
            (sent, _) = try GraphQLHTTPDecoder.decode(
                method: request.method, contentType: request.headers["Content-Type"], queryItems: request.queryItems, body: request.body)
        } catch {
            return Self.json(status: error.status, GraphQLResult(errors: [GraphQLError(message: error.message)]))
        }
        let graphQLRequest: GraphQL.GraphQLRequest
        switch DemoWireFormat.graphQLRequest(sent) {
        case .success(let converted): graphQLRequest = converted
        case .failure(let error): return Self.json(status: 400, GraphQLResult(errors: [error]))
        }
        switch await schema.execute(graphQLRequest, allowMutations: request.method == "POST") {
        case .executed(let result):
            return Self.json(status: 200, result)
        case .rejected(let errors):
            return Self.json(status: 400, GraphQLResult(errors: errors))
        case .mutationNotAllowed:
            var response = Self.json(status: 405, GraphQLResult(errors: [GraphQLError(message: "Mutations must be sent with POST.")]))
            response.headers.add(name: "Allow", value: "POST")
            return response
        }
    }

    private static func json(status: Int, _ result: GraphQLResult) -> ServerResponse {
        guard let data = try? GraphQLJSONEncoder().encode(result) else {
            return ServerResponse(status: 500, headers: ["Content-Type": "text/plain"], body: Bytes("cannot encode the result\n"))
        }
        return ServerResponse(status: status, headers: ["Content-Type": "application/json"], body: data.withUnsafeBytes { Bytes($0) })
    }

    private static func methodNotAllowed(allow: String) -> ServerResponse {
        ServerResponse(status: 405, headers: ["Content-Type": "text/plain", "Allow": allow], body: Bytes("method not allowed\n"))
    }
}
