@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPServer
import GQLGateSubscriptions
import GQLGateWebSocket

/// The demo API's WebSocket side: accepts upgrades of its GraphQL path with
/// `graphql-transport-ws` (preferred) or the legacy `graphql-ws`, and runs
/// each connection as a `DemoWebSocketSession` on a loop thread of its own.
final class DemoWebSocketServer: Sendable {
    private struct Sessions {
        var draining = false
        /// Upgraded sockets on their way to the loop.
        var arriving = 0
        var open: [ObjectIdentifier: DemoWebSocketSession] = [:]
    }

    private static let subprotocols = WebSocketSubprotocol.allCases.map(\.rawValue)
    /// Short close handshakes, so that `shutdown()` does not wait long on a silent peer.
    private static let configuration = WebSocketConfiguration(closeTimeout: .seconds(2))

    private let schema: DemoSchema
    private let settings: ClientProtocolSettings
    private let group = EventLoopGroup(count: 1)
    private let sessions = Lock(Sessions())
    /// Signalled when a session closes.
    private let closedOne = ChangeSignal()

    init(schema: DemoSchema, settings: ClientProtocolSettings = ClientProtocolSettings()) {
        self.schema = schema
        self.settings = settings
    }

    /// Connections open now.
    var openConnections: Int {
        sessions.withLock { $0.open.count }
    }

    /// The answer to an upgrade request: `101` and the socket handed to the
    /// loop, or 400/426 when the handshake is invalid or offers neither subprotocol.
    func answerUpgrade(_ request: ServerRequest) -> ServerResponse {
        let accepted: WebSocketUpgradeAcceptance
        do {
            accepted = try WebSocketHandshake.acceptUpgrade(
                method: request.method, headers: request.headers, supportedSubprotocols: Self.subprotocols)
        } catch {
            var headers = error.responseHeaders
            headers.add(name: "Content-Type", value: "text/plain")
            return ServerResponse(status: error.httpStatus, headers: headers, body: Bytes(error.message + "\n"))
        }
        guard let subprotocol = accepted.subprotocol.flatMap(WebSocketSubprotocol.init(rawValue:)) else {
            let message = "Offer a WebSocket subprotocol: \(Self.subprotocols.joined(separator: " or ")).\n"
            return ServerResponse(status: 400, headers: ["Content-Type": "text/plain"], body: Bytes(message))
        }
        return .upgrade(headers: accepted.responseHeaders) { [self] socket in
            let admitted = sessions.withLock { sessions in
                guard !sessions.draining else { return false }
                sessions.arriving += 1
                return true
            }
            guard admitted else { return socket.close() }
            let loop = group.next()
            loop.execute { [self] in open(socket, subprotocol: subprotocol, on: loop) }
        }
    }

    /// Ends every connection (`complete` for each operation, then close 1001),
    /// waits until all are closed and stops the loop. Upgrades that arrive
    /// from now on are closed at once. Call once, from outside the loop.
    func shutdown() {
        let open = sessions.withLock { sessions in
            sessions.draining = true
            return Array(sessions.open.values)
        }
        for session in open {
            session.loop.execute { session.shutdown() }
        }
        _ = closedOne.wait(until: { sessions.withLock { $0.arriving == 0 && $0.open.isEmpty } }, deadline: .max)
        group.shutdownAndWait()
    }

    private func open(_ socket: UpgradedSocket, subprotocol: WebSocketSubprotocol, on loop: EventLoop) {
        let transport = SocketByteStream(fileDescriptor: socket.fileDescriptor, close: socket.close)
        let connection = WebSocketConnection(role: .server, transport: transport, loop: loop, configuration: Self.configuration,
                                             subprotocol: subprotocol.rawValue, initialBytes: socket.initialBytes)
        let session = DemoWebSocketSession(connection: connection, subprotocol: subprotocol, settings: settings, schema: schema) {
            [weak self] closed in
            guard let self else { return }
            _ = sessions.withLock { $0.open.removeValue(forKey: ObjectIdentifier(closed)) }
            closedOne.signal()
        }
        let draining = sessions.withLock { sessions in
            sessions.arriving -= 1
            sessions.open[ObjectIdentifier(session)] = session
            return sessions.draining
        }
        session.start()
        if draining { session.shutdown() }
    }
}
