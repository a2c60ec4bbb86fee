import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import GQLGatePipeline
import GQLGateTransports
import GQLGateWebSocket

/// A WebSocket client of the demo API: gqlgate's own upgrade over libcurl,
/// with what the server sends queued to be awaited in order.
final class DemoWebSocketClient: WebSocketConnectionDelegate, Sendable {
    /// What the server did.
    enum Event: Equatable {
        /// A text message, read as JSON.
        case message(JSONValue)
        /// The connection closed with this code.
        case closed(code: UInt16)
    }

    /// The subprotocol the server chose.
    let subprotocol: String?
    private let connection: LoopBound<WebSocketConnection>
    private let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation

    private init(connection: LoopBound<WebSocketConnection>, subprotocol: String?) {
        self.connection = connection
        self.subprotocol = subprotocol
        (events, sink) = AsyncStream.makeStream()
    }

    /// Connects to `url` offering `subprotocols` and starts reading.
    static func connect(_ url: String, subprotocols: [String], client: HTTPClient) async throws -> DemoWebSocketClient {
        let opened = try await client.openWebSocket(url: url, subprotocols: subprotocols)
        let connection = LoopBound(opened, loop: opened.loop)
        let peer = DemoWebSocketClient(connection: connection, subprotocol: opened.subprotocol)
        await withTaskExecutorPreference(connection.loop) {
            connection.value.delegate = peer
            connection.value.start()
        }
        return peer
    }

    /// Sends one text message.
    func send(_ text: String) async throws {
        let connection = connection
        try await withTaskExecutorPreference(connection.loop) { try connection.value.send(.text(text)) }
    }

    /// Starts the close handshake with 1000.
    func close() async {
        let connection = connection
        await withTaskExecutorPreference(connection.loop) { connection.value.close() }
    }

    /// The next event, leaving out legacy keep-alives (`ka`); nil once closed.
    func next() async -> Event? {
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() {
            if case .message(let message) = event, message["type"] == .string("ka") { continue }
            return event
        }
        return nil
    }

    /// The next message; nil (and the event recorded as an issue by the caller) when something else came.
    func nextMessage() async -> JSONValue? {
        guard case .message(let message)? = await next() else { return nil }
        return message
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        guard case .text(let text) = message, let value = try? JSONReader.read(text) else {
            sink.yield(.message(.string("unreadable message: \(message)")))
            return
        }
        sink.yield(.message(value))
    }

    func webSocket(_ connection: WebSocketConnection, didCloseWith code: UInt16, reason: String) {
        sink.yield(.closed(code: code))
        sink.finish()
    }
}
