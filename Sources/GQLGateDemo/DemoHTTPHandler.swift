import Foundation
import GQLGateCore
import GQLGateHTTPServer
import GraphQL
import Synchronization

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
    private let admission = Mutex(Admission())

    init(schema: DemoSchema, webSockets: DemoWebSocketServer) {
        self.schema = schema
        self.webSockets = webSockets
    }

    /// Requests taken for execution and not yet answered.
    var inFlight: Int {
        admission.withLock { $0.inFlight }
    }

    /// From now on, GraphQL requests and upgrades are answered 503 at once instead of being taken.
    func beginDraining() {
        admission.withLock { $0.draining = true }
    }

    func answer(_ request: ServerRequest) -> ServerResponse? {
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

    func dispatch(_ request: ServerRequest) {
        Task {
            request.respond(await response(to: request))
            admission.withLock { $0.inFlight -= 1 }
        }
    }

    func payloadTooLarge(_: ServerRequest) -> ServerResponse {
        Self.json(status: 413, GraphQLResult(errors: [GraphQLError(message: "Request body too large.")]))
    }

    private func response(to request: ServerRequest) async -> ServerResponse {
        let graphQLRequest: GraphQLRequest
        switch Self.decode(request) {
        case .success(let decoded):
            graphQLRequest = decoded
        case .failure(let problem):
            return Self.json(status: problem.status, GraphQLResult(errors: [GraphQLError(message: problem.message)]))
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

    /// Why a request carries no usable GraphQL request.
    private struct RequestProblem: Error {
        var status = 400
        let message: String
    }

    private static func decode(_ request: ServerRequest) -> Result<GraphQLRequest, RequestProblem> {
        if request.method == "GET" {
            return decodeQueryItems(request)
        }
        guard let contentType = request.headers["Content-Type"],
              contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
        else {
            return .failure(RequestProblem(status: 415, message: "POST bodies must be sent as Content-Type: application/json."))
        }
        do {
            return .success(try JSONDecoder().decode(GraphQLRequest.self, from: request.body.withUnsafeBytes { Data($0) }))
        } catch {
            return .failure(RequestProblem(message: "The body must be a JSON object with a \"query\" string (and optionally \"operationName\" and \"variables\")."))
        }
    }

    private static func decodeQueryItems(_ request: ServerRequest) -> Result<GraphQLRequest, RequestProblem> {
        guard case let query?? = request.queryItem("query"), !query.isEmpty else {
            return .failure(RequestProblem(message: "Missing \"query\" parameter."))
        }
        var variables: [String: Map] = [:]
        if case let text?? = request.queryItem("variables"), !text.isEmpty {
            do {
                variables = try JSONDecoder().decode([String: Map].self, from: Data(text.utf8))
            } catch {
                return .failure(RequestProblem(message: "The \"variables\" parameter must be a JSON object."))
            }
        }
        let operationName = request.queryItem("operationName").flatMap { $0 }.flatMap { $0.isEmpty ? nil : $0 }
        return .success(GraphQLRequest(query: query, operationName: operationName, variables: variables))
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
