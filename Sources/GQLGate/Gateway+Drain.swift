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
    /// Loops whose thread was still busy at the deadline (a piece of work
    /// that did not return), left to the process's exit.
    public var busyLoops: [Int] = []
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
    /// Steps 4 and 5 share `stopBudget`, so the caller gets control back
    /// within `drainTimeout` + `stopBudget` whatever clients do, even with a
    /// loop stuck in work that never returns (reported in `busyLoops`).
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
        let deadline = MonotonicClock.nanoseconds() + Self.stopBudget.nanoseconds
        let cutShort = endpoint.closeInFlight()
        drainSubscriptions(before: deadline)
        _ = Self.wait(upTo: .seconds(2), before: deadline) { endpoint.streams.count == 0 }
        guard Self.wait(upTo: .seconds(2), before: deadline, until: { server.suspendedRequests == 0 }) else {
            return DrainOutcome(cutShort: cutShort, stopped: false)
        }
        server.stop()
        watchdog.stop()
        let busyLoops = loops.shutdownAndWait(until: deadline)
        return DrainOutcome(cutShort: cutShort, stopped: true, busyLoops: busyLoops)
    }

    /// How long everything after the drain may take, all steps together.
    static let stopBudget = Duration.seconds(4)

    /// Polls `condition` every 5 ms until it holds (true) or `timeout` passes
    /// or `deadline` (`MonotonicClock` nanoseconds) comes, whichever is first (false).
    static func wait(upTo timeout: Duration, before deadline: UInt64 = .max, until condition: () -> Bool) -> Bool {
        let deadline = min(deadline, MonotonicClock.nanoseconds() + timeout.nanoseconds)
        while !condition() {
            if MonotonicClock.nanoseconds() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }
}
