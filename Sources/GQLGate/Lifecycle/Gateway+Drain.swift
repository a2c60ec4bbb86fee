@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop

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
    /// 2. the listening sockets close (libmicrohttpd quiesce), the admin listener's too: new connections are refused;
    /// 3. requests in flight finish, incremental answers (`@defer`, `@stream`) and admin purges included, for up to `drainTimeout`;
    /// 4. those still unanswered get 503 `SHUTTING_DOWN` and their work is cancelled
    ///    (as does any request arriving on an open connection from then on);
    ///    client WebSockets get `complete` for every operation and close 1001
    ///    (each client has 2 s to answer the close), then the upstream WebSockets close;
    /// 5. once no connection is suspended, the servers stop; the spans still queued are exported
    ///    (for up to 2 s), then the loops stop.
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
        generations.current.schemaLearning?.stop()
        generations.current.schemaLoading?.stop()
        tlsWatch.withLock { $0?.cancel() }
        server.quiesce()
        admin?.server.quiesce()
        let drainDeadline = Self.deadline(in: drainTimeout)
        _ = inFlight.waitUntilEmpty(before: drainDeadline)
        _ = admin?.endpoint.inFlight.waitUntilEmpty(before: drainDeadline)
        _ = endpoint.streams.waitUntilAnswersEnded(before: drainDeadline)
        let deadline = Self.deadline(in: Self.stopBudget)
        let cutShort = endpoint.closeInFlight() + (admin?.endpoint.closeInFlight() ?? 0)
        drainSubscriptions(before: deadline)
        _ = endpoint.streams.waitUntilEmpty(before: Self.deadline(in: .seconds(2), before: deadline))
        guard server.waitUntilNoneSuspended(before: Self.deadline(in: .seconds(2), before: deadline)),
              admin?.server.waitUntilNoneSuspended(before: Self.deadline(in: .seconds(2), before: deadline)) ?? true else {
            return DrainOutcome(cutShort: cutShort, stopped: false)
        }
        server.stop()
        admin?.server.stop()
        spanExport.flush(before: Self.deadline(in: .seconds(2), before: deadline))
        watchdog.stop()
        let busyLoops = loops.shutdownAndWait(until: deadline)
        return DrainOutcome(cutShort: cutShort, stopped: true, busyLoops: busyLoops)
    }

    /// How long everything after the drain may take, all steps together.
    static let stopBudget = Duration.seconds(4)

    /// `timeout` from now, or `deadline` if that comes first (monotonic nanoseconds, `GatewayClock`).
    static func deadline(in timeout: Duration, before deadline: UInt64 = .max) -> UInt64 {
        min(deadline, GatewayClock.system.monotonicNanoseconds() + timeout.nanoseconds)
    }
}
