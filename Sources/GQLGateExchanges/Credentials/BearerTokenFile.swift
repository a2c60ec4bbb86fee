@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// `auth.bearer_token_file`: the token is the file's trimmed contents, read
/// again when the file changes (checked at most once a second) — Kubernetes
/// projected service-account tokens rotate in place this way — and after a
/// 401 whatever its size, inode and time stamp say. A file that becomes
/// unreadable or empty keeps the last good token in use. Reading a small
/// local file takes microseconds, so it happens inline on the loop that
/// needs the token.
package final class BearerTokenFile: BearerTokenSource {
    private struct State: Sendable {
        var file: WatchedFile
        var token: BearerToken?
        var recheck = false
    }

    private let state: Lock<State>
    private let clock: GatewayClock
    private let recorder: (any FactRecorder)?

    /// - Parameters:
    ///   - clock: when the file was last checked (tests move it).
    ///   - recorder: told each time the file is read for a new token, with whether it held one.
    package init(path: String, clock: GatewayClock = .system,
                recorder: (any FactRecorder)? = nil) {
        state = Lock(State(file: WatchedFile(path: path)))
        self.clock = clock
        self.recorder = recorder
    }

    package func token() throws(GatewayError) -> BearerToken {
        let (result, read) = state.withLock { state -> (Result<BearerToken, GatewayError>, Bool?) in
            let time = clock.monotonicNanoseconds()
            // After a 401 the file is read whatever its stamp says: a token rewritten in place
            // with the same size within the file system's time resolution looks unchanged.
            if let token = state.token, !state.recheck, !state.file.hasChanged(now: time) {
                return (.success(token), nil)
            }
            state.recheck = false
            let value = state.file.read(now: time).map { String($0.trimmingASCIIWhitespace()) } ?? ""
            guard !value.isEmpty, value.isSafeHeaderValue else {
                // A file caught mid-rewrite or removed: keep sending the last good token.
                if let token = state.token { return (.success(token), false) }
                return (.failure(.upstreamAuthFailed("auth.bearer_token_file \(state.file.path) is missing, unreadable or empty.")), false)
            }
            if let token = state.token, token.value == value { return (.success(token), nil) }
            let token = BearerToken(value: value, generation: (state.token?.generation ?? 0) + 1)
            state.token = token
            return (.success(token), true)
        }
        if let read { recorder?.record(.upstreamTokenRefreshed(succeeded: read)) }
        return try result.get()
    }

    package func rejected(_ token: BearerToken) {
        state.withLock { state in
            if state.token?.generation == token.generation { state.recheck = true }
        }
    }
}
