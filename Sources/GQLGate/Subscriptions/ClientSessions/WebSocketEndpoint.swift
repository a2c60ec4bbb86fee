import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
import GQLGateHTTPServer
import GQLGateMetrics
import GQLGatePipeline
import GQLGateSubscriptions
import GQLGateWebSocket

/// `GET server.path` with `Upgrade: websocket`: checks the handshake, answers
/// `101` with the chosen subprotocol (graphql-transport-ws first, then
/// legacy graphql-ws), and hands the socket to a `ClientWebSocketSession` on
/// a gateway loop. A client offering neither subprotocol gets the upgrade
/// without one and a close with 4406, as the graphql-ws server does.
final class WebSocketEndpoint: Sendable {
    /// 4406: the client offered no subprotocol gqlgate speaks.
    static let subprotocolNotAcceptable = WebSocketClose(code: 4406, reason: "Subprotocol not acceptable")

    let sessions = ClientWebSocketSessions()
    private let loops: EventLoopGroup
    private let context: ClientWebSocketSession.Context

    init(generations: CurrentGeneration, loops: EventLoopGroup, requestIDs: RequestIDGenerator) {
        self.loops = loops
        context = ClientWebSocketSession.Context(generations: generations, requestIDs: requestIDs, sessions: sessions)
    }

    /// How long a client has to answer gqlgate's close frame before its socket is closed anyway.
    static let closeTimeout = Duration.seconds(2)

    /// Whether the request asks to switch to WebSocket.
    static func isUpgrade(_ request: ServerRequest) -> Bool {
        WebSocketHandshake.asksForWebSocket(request.headers)
    }

    /// The answer to an upgrade request on the GraphQL path: 101, or 400/426 for a bad handshake.
    func answer(_ request: ServerRequest, pipeline: GatewayGeneration) -> ServerResponse {
        let accepted: WebSocketUpgradeAcceptance
        do {
            accepted = try WebSocketHandshake.acceptUpgrade(
                method: request.method, headers: request.headers,
                supportedSubprotocols: WebSocketSubprotocol.allCases.map(\.rawValue))
        } catch {
            var response = GatewayError.badRequest("Not a valid WebSocket upgrade: \(error.message).").response(as: .refusing(request))
            response.status = error.httpStatus
            for field in error.responseHeaders { response.headers.add(name: field.name, value: field.value) }
            return ServerResponse(status: response.status, headers: response.headers, body: response.body)
        }
        let subscriptions = pipeline.config.subscriptions
        let settings = ClientProtocolSettings(
            initTimeout: subscriptions.initTimeout, keepalive: subscriptions.keepalive,
            maxPerConnection: subscriptions.maxPerConnection)
        let clientAuth = pipeline.clientAuth.flatMap { $0.authenticate(request.headers) ? nil : $0 }
        let headers = request.headers
        let clientID = pipeline.clientID(request)
        var origin = WebSocketTraceOrigin(
            upgradeHeaders: headers, path: pipeline.path, subprotocol: accepted.subprotocol ?? "", clientAddress: request.clientAddress())
        if pipeline.tracer != nil, pipeline.clientAuth != nil, clientAuth == nil, let key = ClientAuthenticator.presentedKey(in: headers) {
            origin.authenticated(key: key)  // let in by the upgrade request's key
        }
        let traceOrigin = origin
        let loop = loops.next()
        let context = context
        let configuration = WebSocketConfiguration(
            pingInterval: subscriptions.keepalive > .zero ? subscriptions.keepalive : nil, closeTimeout: Self.closeTimeout)
        return .upgrade(headers: accepted.responseHeaders) { socket in
            loop.execute {
                let transport = SocketByteStream(fileDescriptor: socket.fileDescriptor, close: socket.close)
                let connection = WebSocketConnection(
                    role: .server, transport: transport, loop: loop, configuration: configuration,
                    subprotocol: accepted.subprotocol, initialBytes: socket.initialBytes)
                guard let subprotocol = accepted.subprotocol.flatMap(WebSocketSubprotocol.init(rawValue:)) else {
                    connection.start()
                    connection.close(code: Self.subprotocolNotAcceptable.code, reason: Self.subprotocolNotAcceptable.reason)
                    return
                }
                let session = ClientWebSocketSession(
                    connection: connection, subprotocol: subprotocol, settings: settings, upgradeHeaders: headers,
                    clientID: clientID, clientAuth: clientAuth, traceOrigin: traceOrigin, context: context)
                guard context.sessions.admit(session) else {
                    connection.start()
                    connection.close(code: WebSocketClose.goingAway.code, reason: WebSocketClose.goingAway.reason)
                    return
                }
                session.start()
            }
        }
    }
}
