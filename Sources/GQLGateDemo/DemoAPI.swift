@_spi(GQLGateInternals) import GQLGateCore
import GQLGateHTTPServer

/// The demo GraphQL API: the Star Wars schema served over HTTP at `/graphql`,
/// with a health check at `/healthz`. The same path accepts WebSocket upgrades
/// (`graphql-transport-ws` or legacy `graphql-ws`) for the `reviewAdded`
/// subscription, and for queries and mutations too. Reviews are kept in memory
/// for as long as the object lives.
///
/// ```swift
/// let demo = DemoAPI(host: "127.0.0.1", port: 4000)
/// try demo.start()
/// // POST http://127.0.0.1:4000/graphql, or a WebSocket to ws://127.0.0.1:4000/graphql
/// demo.stop()
/// ```
package final class DemoAPI: Sendable {
    private struct Running {
        let server: HTTPServer
        let handler: DemoHTTPHandler
        let webSockets: DemoWebSocketServer
    }

    /// The address it listens on.
    package let host: String
    /// The reviews created through the API.
    package let reviews = ReviewStore()
    private let requestedPort: UInt16
    private let running = Lock<Running?>(nil)

    /// Prepares the API for `host`:`port`; port 0 picks a free port at `start()`.
    package init(host: String, port: UInt16) {
        self.host = host
        requestedPort = port
    }

    deinit {
        stop()
    }

    /// Builds the schema and starts serving; does nothing if already serving.
    /// Throws if the address cannot be bound.
    package func start() throws {
        try running.withLock { running in
            guard running == nil else { return }
            let schema = try DemoSchema(reviews: reviews)
            let webSockets = DemoWebSocketServer(schema: schema)
            let handler = DemoHTTPHandler(schema: schema, webSockets: webSockets)
            let server = HTTPServer(configuration: HTTPServerConfiguration(host: host, port: requestedPort), delegate: handler)
            do {
                try server.start()
            } catch {
                webSockets.shutdown()
                throw error
            }
            running = Running(server: server, handler: handler, webSockets: webSockets)
        }
    }

    /// The port served on: the bound one while running, else the one asked for.
    package var port: UInt16 {
        running.withLock { $0?.server.port } ?? requestedPort
    }

    /// The GraphQL endpoint, e.g. `http://127.0.0.1:4000/graphql`.
    package var endpoint: String {
        "http://\(authority)/graphql"
    }

    /// The same endpoint for WebSockets, e.g. `ws://127.0.0.1:4000/graphql`.
    var webSocketEndpoint: String {
        "ws://\(authority)/graphql"
    }

    /// Connections open over WebSocket now.
    var openWebSocketConnections: Int {
        running.withLock { $0?.webSockets.openConnections } ?? 0
    }

    private var authority: String {
        "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Stops serving. New requests are refused at once; WebSocket operations
    /// get `complete` and their sockets close with 1001; the calling thread
    /// waits until those sockets are closed and running requests answered.
    package func stop() {
        guard let stopping = running.withLock({ running in
            defer { running = nil }
            return running
        }) else { return }
        stopping.handler.beginDraining()
        stopping.webSockets.shutdown()
        stopping.server.quiesce()
        _ = stopping.handler.waitUntilAnswered(before: .max)
        _ = stopping.server.waitUntilNoneSuspended(before: .max)
        stopping.server.stop()
    }
}
