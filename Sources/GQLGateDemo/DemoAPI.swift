import Foundation
import GQLGateHTTPServer
import Synchronization

/// The demo GraphQL API: the Star Wars schema served over HTTP at `/graphql`,
/// with a health check at `/healthz`. Reviews are kept in memory for as long
/// as the object lives.
///
/// ```swift
/// let demo = DemoAPI(host: "127.0.0.1", port: 4000)
/// try demo.start()
/// // POST http://127.0.0.1:4000/graphql
/// demo.stop()
/// ```
public final class DemoAPI: Sendable {
    private struct Running {
        let server: HTTPServer
        let handler: DemoHTTPHandler
    }

    /// The address it listens on.
    public let host: String
    /// The reviews created through the API.
    public let reviews = ReviewStore()
    private let requestedPort: UInt16
    private let running = Mutex<Running?>(nil)

    /// Prepares the API for `host`:`port`; port 0 picks a free port at `start()`.
    public init(host: String, port: UInt16) {
        self.host = host
        requestedPort = port
    }

    deinit {
        stop()
    }

    /// Builds the schema and starts serving; does nothing if already serving.
    /// Throws if the address cannot be bound.
    public func start() throws {
        try running.withLock { running in
            guard running == nil else { return }
            let handler = DemoHTTPHandler(schema: try DemoSchema(reviews: reviews))
            let server = HTTPServer(configuration: HTTPServerConfiguration(host: host, port: requestedPort), delegate: handler)
            try server.start()
            running = Running(server: server, handler: handler)
        }
    }

    /// The port served on: the bound one while running, else the one asked for.
    public var port: UInt16 {
        running.withLock { $0?.server.port } ?? requestedPort
    }

    /// The GraphQL endpoint, e.g. `http://127.0.0.1:4000/graphql`.
    public var endpoint: String {
        let address = host.contains(":") ? "[\(host)]" : host
        return "http://\(address):\(port)/graphql"
    }

    /// Stops serving. New requests are refused at once; the calling thread
    /// waits until those already running have been answered.
    public func stop() {
        guard let stopping = running.withLock({ running in
            defer { running = nil }
            return running
        }) else { return }
        stopping.handler.beginDraining()
        stopping.server.quiesce()
        while stopping.handler.inFlight > 0 || stopping.server.suspendedRequests > 0 {
            Thread.sleep(forTimeInterval: 0.001)
        }
        stopping.server.stop()
    }
}
