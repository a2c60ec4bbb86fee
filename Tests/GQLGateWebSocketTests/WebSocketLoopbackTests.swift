@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import GQLGateHTTPServer
import GQLGateTransports
import GQLGateWebSocket
import Testing

/// The whole path over loopback: libmicrohttpd upgrades a request and hands
/// the socket to a loop, a server-role connection echoes; the libcurl
/// CONNECT_ONLY client upgrades its own connection and talks to it.
@Suite(.timeLimit(.minutes(1))) struct WebSocketLoopbackTests {
    @Test func curlClientTalksToTheUpgradedServerAndClosesCleanly() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let loop = group.loops[0]
        let upgrades = EchoUpgradeDelegate(loop: loop)
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), delegate: upgrades)
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(group: group)
        let recorder = EventRecorder()

        let connection = try await withTaskExecutorPreference(loop) {
            let connection = try await client.openWebSocket(
                url: "ws://127.0.0.1:\(server.port)/graphql", subprotocols: ["graphql-transport-ws", "graphql-ws"])
            connection.delegate = recorder
            connection.start()
            try connection.send(.text("hello"))
            try connection.send(.binary(Bytes([0, 1, 2, 255])))
            return connection
        }
        #expect(connection.subprotocol == "graphql-transport-ws")
        var events = recorder.events.makeAsyncIterator()
        #expect(await events.next() == .message(.text("echo: hello")))
        #expect(await events.next() == .message(.binary(Bytes([0, 1, 2, 255]))))
        let big = String(repeating: "z", count: 200_000)
        try await withTaskExecutorPreference(loop) { try connection.send(.text(big)) }
        #expect(await events.next() == .message(.text("echo: " + big)))
        await withTaskExecutorPreference(loop) { connection.close(code: 1000, reason: "bye") }
        #expect(await events.next() == .closed(code: 1000, reason: "bye"))
        #expect(await upgrades.serverSide.next() == .closed(code: 1000, reason: "bye"))
    }

    @Test func refusedUpgradesAndBadURLsThrow() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0),
                                delegate: EchoUpgradeDelegate(loop: group.loops[0]))
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(group: group)
        await #expect(throws: WebSocketError(.badHandshakeResponse, "the server answered 'HTTP/1.1 404 Not Found' instead of 101 Switching Protocols")) {
            _ = try await client.openWebSocket(url: "ws://127.0.0.1:\(server.port)/elsewhere")
        }
        await #expect(throws: WebSocketError.self) { _ = try await client.openWebSocket(url: "http://127.0.0.1/") }
        await #expect(throws: HTTPClientError.self) { _ = try await client.openWebSocket(url: "ws://127.0.0.1:1/") }
    }
}

/// Upgrades `GET /graphql` and echoes every message (text prefixed with
/// "echo: "); records what the server-side connection saw.
final class EchoUpgradeDelegate: HTTPServerDelegate {
    let loop: EventLoop
    let serverSide = EventRecorder()
    private let sessions = Lock<[EchoSession]>([])

    init(loop: EventLoop) {
        self.loop = loop
    }

    func answer(_ request: ServerRequest) -> ServerAnswer {
        upgrade(request).map { .now($0) } ?? .later {}
    }

    private func upgrade(_ request: ServerRequest) -> ServerResponse? {
        guard request.path == "/graphql" else { return ServerResponse(status: 404) }
        do {
            let accepted = try WebSocketHandshake.acceptUpgrade(
                method: request.method, headers: request.headers, supportedSubprotocols: ["graphql-transport-ws", "graphql-ws"])
            return .upgrade(headers: accepted.responseHeaders) { [self] socket in
                loop.execute { [self] in
                    let transport = SocketByteStream(fileDescriptor: socket.fileDescriptor, close: socket.close)
                    let connection = WebSocketConnection(role: .server, transport: transport, loop: loop,
                                                         subprotocol: accepted.subprotocol, initialBytes: socket.initialBytes)
                    let session = EchoSession(connection: connection, recorder: serverSide)
                    sessions.withLock { $0.append(session) }
                    connection.delegate = session
                    connection.start()
                }
            }
        } catch {
            return ServerResponse(status: error.httpStatus, headers: error.responseHeaders)
        }
    }

    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse {
        ServerResponse(status: 413)
    }
}

/// One echoing server-side connection.
final class EchoSession: WebSocketConnectionDelegate, @unchecked Sendable {
    let connection: WebSocketConnection
    let recorder: EventRecorder

    init(connection: WebSocketConnection, recorder: EventRecorder) {
        self.connection = connection
        self.recorder = recorder
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        switch message {
        case .text(let text): try? connection.send(.text("echo: " + text))
        case .binary: try? connection.send(message)
        }
    }

    func webSocket(_ connection: WebSocketConnection, didCloseWith code: UInt16, reason: String) {
        recorder.webSocket(connection, didCloseWith: code, reason: reason)
    }
}
