import GQLGateEventLoop
import GQLGatePipeline
import Synchronization

/// `auth.bearer_token_file`: the token is the file's trimmed contents, read
/// again when the file changes (checked at most once a second, and at once
/// after a 401) — Kubernetes projected service-account tokens rotate in
/// place this way. Reading a small local file takes microseconds, so it
/// happens inline on the loop that needs the token.
public final class BearerTokenFile: BearerTokenSource {
    private struct State: Sendable {
        var file: WatchedFile
        var token: BearerToken?
        var recheck = false
    }

    private let state: Mutex<State>
    private let now: @Sendable () -> UInt64
    private let onRefresh: @Sendable () -> Void

    /// - Parameter onRefresh: called each time a new token is read (for metrics).
    public init(path: String, now: @escaping @Sendable () -> UInt64 = MonotonicClock.nanoseconds,
                onRefresh: @escaping @Sendable () -> Void = {}) {
        state = Mutex(State(file: WatchedFile(path: path)))
        self.now = now
        self.onRefresh = onRefresh
    }

    public func token() throws(GatewayError) -> BearerToken {
        let (result, refreshed) = state.withLock { state -> (Result<BearerToken, GatewayError>, Bool) in
            let time = now()
            if let token = state.token, !state.file.hasChanged(now: time, force: state.recheck) {
                state.recheck = false
                return (.success(token), false)
            }
            state.recheck = false
            guard let text = state.file.read(now: time) else {
                return (.failure(.upstreamAuthFailed("auth.bearer_token_file \(state.file.path) cannot be read.")), false)
            }
            let value = String(text.trimmingASCIIWhitespace())
            guard !value.isEmpty, value.isSafeHeaderValue else {
                return (.failure(.upstreamAuthFailed("auth.bearer_token_file \(state.file.path) holds no usable token.")), false)
            }
            if let token = state.token, token.value == value { return (.success(token), false) }
            let token = BearerToken(value: value, generation: (state.token?.generation ?? 0) + 1)
            state.token = token
            return (.success(token), true)
        }
        if refreshed { onRefresh() }
        return try result.get()
    }

    public func rejected(_ token: BearerToken) {
        state.withLock { state in
            if state.token?.generation == token.generation { state.recheck = true }
        }
    }
}
