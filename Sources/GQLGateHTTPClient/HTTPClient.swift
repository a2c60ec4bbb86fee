import GQLGateEventLoop

/// The upstream HTTP client: one libcurl multi handle per gateway loop, with
/// pooled easy handles and kept-alive (HTTP/2-multiplexed where offered)
/// connections. A call made from a loop runs on that loop's multi handle.
public final class HTTPClient: Sendable {
    let group: EventLoopGroup
    private let multis: [CurlMulti]

    /// - Parameters:
    ///   - group: the loops whose threads drive libcurl.
    ///   - maxConnectionsPerLoop: connections each loop keeps alive (≥ the expected concurrency).
    public init(group: EventLoopGroup, maxConnectionsPerLoop: Int = 256) {
        self.group = group
        multis = group.loops.map { CurlMulti(loop: $0, maxConnections: maxConnectionsPerLoop) }
    }

    /// Each loop closes its multi handle: transfers still running end as
    /// cancelled, and no timer or socket watcher is left pointing at it.
    deinit {
        for multi in multis {
            multi.loop.execute { multi.shutDown() }
        }
    }

    /// Sends `request` and returns the upstream's answer, whatever its status.
    /// Throws `HTTPClientError` when there is no answer.
    public func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let multi = multis[(EventLoop.current?.index).flatMap { $0 < multis.count ? $0 : nil } ?? group.next().index]
        let transfer = CurlTransfer(request: request)
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                if multi.loop.inLoop {
                    multi.start(transfer, resuming: continuation)
                } else {
                    multi.loop.execute { multi.start(transfer, resuming: continuation) }
                }
            }
        } onCancel: {
            multi.loop.execute { multi.cancel(transfer) }
        }
    }
}
