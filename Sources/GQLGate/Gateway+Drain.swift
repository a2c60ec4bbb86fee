import GQLGateEventLoop

#if canImport(Glibc)
import Glibc
#endif

/// How a drain ended.
public struct DrainOutcome: Sendable, Equatable {
    /// Requests still unanswered at the deadline, answered 503 `SHUTTING_DOWN`.
    public var cutShort: Int
    /// Whether the server and loops were stopped. False only when a
    /// connection stayed suspended, which leaves the server to the process exit.
    public var stopped: Bool
}

extension Gateway {
    /// Requests taken by the server and not answered yet.
    public var requestsInFlight: Int { inFlight.count }

    /// Drains and stops, in this order:
    /// 1. `/readyz` answers 503, so load balancers stop sending traffic;
    /// 2. the listening socket closes (libmicrohttpd quiesce): new connections are refused;
    /// 3. requests in flight finish, for up to `drainTimeout`;
    /// 4. those still unanswered get 503 `SHUTTING_DOWN` and their work is cancelled
    ///    (as does any request arriving on an open connection from then on);
    ///    client WebSockets get `complete` for every operation and close 1001
    ///    (each client has 2 s to answer the close), then the upstream WebSockets close;
    /// 5. once no connection is suspended, the server stops, then the loops.
    ///
    /// Streaming clients (subscriptions) are completed between steps 4 and 5,
    /// before the server stops: libmicrohttpd aborts when stopped with a
    /// connection suspended. Streamed answers (SSE, multipart) get their end
    /// and up to 2 s to send it.
    @discardableResult
    public func shutdown(drainTimeout: Duration) -> DrainOutcome {
        readiness.startDraining()
        pipelines.current.schemaLearning?.stop()
        server.quiesce()
        _ = Self.wait(upTo: drainTimeout) { inFlight.count == 0 }
        let cutShort = endpoint.closeInFlight()
        drainSubscriptions()
        _ = Self.wait(upTo: .seconds(2)) { endpoint.streams.count == 0 }
        guard Self.wait(upTo: .seconds(2), until: { server.suspendedRequests == 0 }) else {
            return DrainOutcome(cutShort: cutShort, stopped: false)
        }
        server.stop()
        loops.shutdownAndWait()
        return DrainOutcome(cutShort: cutShort, stopped: true)
    }

    /// Polls `condition` every 5 ms until it holds (true) or `timeout` passes (false).
    static func wait(upTo timeout: Duration, until condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + timeout.nanoseconds
        while !condition() {
            if MonotonicClock.nanoseconds() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }
}
