import GQLGateCore
import GQLGateExchanges
import GQLGateHTTPServer
import GQLGateMetrics

/// The endpoints for operators, open to every client: `/healthz`, `/readyz`
/// and `/metrics` (GET or HEAD). Answered on the server thread, except a
/// `/readyz` without fresh evidence, which waits for a probe.
struct OperationsEndpoints: Sendable {
    /// How an operator request is answered.
    enum Route {
        /// At once, with this.
        case answer(ServerResponse)
        /// After probing the upstream (`probeAnswer`).
        case probe
    }

    static let healthPath = "/healthz"
    static let readinessPath = "/readyz"

    /// Whether `path` is a probe (`/healthz`, `/readyz`): what orchestrators
    /// call, without client credentials, and which tells nothing of the API.
    static func isProbe(_ path: String) -> Bool {
        path == healthPath || path == readinessPath
    }

    let readiness: Readiness
    let metrics: GatewayMetrics
    private let healthy = StaticResponse(status: 200, headers: Self.json, body: Bytes("{\"status\":\"ok\"}"))
    private let ready = StaticResponse(status: 200, headers: Self.json, body: Bytes("{\"status\":\"ready\"}"))
    private let notReady = StaticResponse(
        status: 503, headers: Self.json, body: Bytes("{\"status\":\"not ready\",\"reason\":\"the upstream does not answer\"}"))
    private let draining = StaticResponse(
        status: 503, headers: Self.json, body: Bytes("{\"status\":\"draining\",\"reason\":\"the gateway is shutting down\"}"))
    private static let json: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
    private static let metricsHeaders: HTTPHeaders = ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"]

    init(readiness: Readiness, metrics: GatewayMetrics) {
        self.readiness = readiness
        self.metrics = metrics
    }

    /// The route for `request`, or nil when it is not an operator endpoint (or
    /// `/metrics` while metrics are off). `/readyz` says whether this gateway
    /// can serve (its upstream answers, it is not draining); the circuit
    /// breaker does not change it: clients' queries that fail are no evidence
    /// against the gateway, and its own probe closes the breaker.
    func route(_ request: ServerRequest, metricsEnabled: Bool) -> Route? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        switch request.path {
        case Self.healthPath:
            return .answer(ServerResponse(healthy))
        case Self.readinessPath:
            return answer(readiness.decision()).map(Route.answer) ?? .probe
        case "/metrics" where metricsEnabled:
            return .answer(ServerResponse(status: 200, headers: Self.metricsHeaders, body: Bytes(metrics.render())))
        default:
            return nil
        }
    }

    /// The `/readyz` answer after probing the upstream.
    func probeAnswer(_ probe: ReadinessProbe) async -> ServerResponse {
        answer(await readiness.decisionAfterProbe(probe)) ?? ServerResponse(notReady)
    }

    private func answer(_ decision: ReadinessState.Decision) -> ServerResponse? {
        switch decision {
        case .ready: ServerResponse(ready)
        case .notReady: ServerResponse(notReady)
        case .draining: ServerResponse(draining)
        case .probe: nil
        }
    }
}
