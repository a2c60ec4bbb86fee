@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop

/// The client WebSocket sessions open now, so a drain can end them all.
final class ClientWebSocketSessions: Sendable {
    private struct State {
        var open: [ObjectIdentifier: LoopBound<ClientWebSocketSession>] = [:]
        var closing = false
    }

    private let state = Lock(State())
    /// Signalled when the last session goes.
    private let emptied = ChangeSignal()

    /// Sessions open now.
    var count: Int {
        state.withLock { $0.open.count }
    }

    /// Keeps `session` until it closes; false once `shutdownAll` ran (the session must close at once).
    func admit(_ session: ClientWebSocketSession) -> Bool {
        let key = ObjectIdentifier(session), bound = LoopBound(session, loop: session.loop)
        return state.withLock { state in
            guard !state.closing else { return false }
            state.open[key] = bound
            return true
        }
    }

    /// Forgets a closed session.
    func remove(_ session: ClientWebSocketSession) {
        let key = ObjectIdentifier(session)
        let empty = state.withLock { state in
            state.open.removeValue(forKey: key) != nil && state.open.isEmpty
        }
        if empty { emptied.signal() }
    }

    /// Waits until no session is open (true) or `deadline` (monotonic nanoseconds, `GatewayClock`) comes (false).
    func waitUntilEmpty(before deadline: UInt64) -> Bool {
        emptied.wait(until: { count == 0 }, deadline: deadline)
    }

    /// Sends every open session's operations `complete` and closes them with 1001; refuses later ones.
    func shutdownAll() {
        let open = state.withLock { state in
            state.closing = true
            return Array(state.open.values)
        }
        for session in open { session.loop.execute { session.value.shutdown() } }
    }
}
