package import GQLGateEventLoop

/// The upstream HTTP client: one libcurl multi handle per gateway loop, with
/// pooled easy handles and kept-alive (HTTP/2-multiplexed where offered)
/// connections. A call made from a loop runs on that loop's multi handle.
package final class HTTPClient: Sendable {
    /// The loops whose threads drive libcurl.
    package let group: EventLoopGroup
    private let pools: [LoopBound<CurlTransferPool>]
    private let budget: ResponseBytesBudget

    /// - Parameters:
    ///   - group: the loops whose threads drive libcurl.
    ///   - maxConnectionsPerLoop: connections each loop keeps alive (≥ the expected concurrency).
    ///   - maxBytesInFlight: what the decoded bodies of every answer being received may hold
    ///     together; past it the transfer that would pass it ends with `answerTooLarge`.
    package init(group: EventLoopGroup, maxConnectionsPerLoop: Int = 256, maxBytesInFlight: Int = 256 << 20) {
        self.group = group
        budget = ResponseBytesBudget(limit: maxBytesInFlight)
        pools = group.loops.map { LoopBound(CurlTransferPool(loop: $0, maxConnections: maxConnectionsPerLoop), loop: $0) }
    }

    /// Each loop closes its multi handle: transfers still running end as
    /// cancelled, and no timer or socket watcher is left pointing at it.
    deinit {
        for pool in pools {
            pool.loop.execute { pool.value.shutDown() }
        }
    }

    /// Sends `request` and returns the upstream's answer, whatever its status.
    /// Throws `HTTPClientError` when there is no answer. A request that
    /// `readsParts` gets a `multipart/mixed` answer at the end of its header
    /// block, its body to come as `parts`.
    package func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let pool = pools[(EventLoop.current?.index).flatMap { $0 < pools.count ? $0 : nil } ?? group.next().index]
        let handOff = ResponseHandOff()
        defer { handOff.received() }  // once the answer or the error is here
        let parts = request.readsParts ? PartQueue(budget: budget) : nil
        let transfer = LoopBound(CurlTransfer(request: request, budget: budget, handOff: handOff, partQueue: parts), loop: pool.loop)
        parts?.connect(PartQueue.Control(
            resume: { pool.loop.execute { pool.value.resumeReceiving(transfer.value) } },
            cancel: { pool.loop.execute { pool.value.cancel(transfer.value) } }))
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                if pool.loop.inLoop {
                    pool.value.start(transfer.value, resuming: continuation)
                } else {
                    pool.loop.execute { pool.value.start(transfer.value, resuming: continuation) }
                }
            }
        } onCancel: {
            pool.loop.execute { pool.value.cancel(transfer.value) }
        }
    }
}
