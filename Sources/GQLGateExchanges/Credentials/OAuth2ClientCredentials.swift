@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// `auth.oauth2`: tokens from an OAuth2 token endpoint (client credentials
/// grant). One token is cached and shared by every loop; it is refreshed
/// shortly before it expires (while the old one is still sent), or after a
/// 401. However many operations need a token at once, one request goes to
/// the endpoint and every waiter gets its answer (single flight). A failing
/// endpoint is asked again only after a backoff (1 s, doubling, at most
/// 30 s); until then operations fail at once with `UPSTREAM_AUTH_FAILED`.
package final class OAuth2ClientCredentials: BearerTokenSource {
    /// Fetches one token (the transport does: `OAuth2TokenRequest.fetch(with:)`).
    package typealias Fetch = @Sendable () async -> Result<OAuth2TokenResponse, GatewayError>

    private typealias Waiter = CheckedContinuation<Result<BearerToken, GatewayError>, Never>

    private struct State {
        var token: BearerToken?
        /// When to fetch the next token in the background, and when the current one is no longer sent.
        var refreshAt: UInt64 = 0
        var expiresAt: UInt64 = 0
        var fetching = false
        var waiters: [Waiter] = []
        var failure: GatewayError?
        var failures = 0
        var retryAt: UInt64 = 0
        var generation: UInt64 = 0
    }

    private let state = Lock(State())
    private let fetch: Fetch
    private let clock: GatewayClock
    private let recorder: (any FactRecorder)?

    /// - Parameters:
    ///   - clock: when tokens expire and failures may be retried (tests move it).
    ///   - recorder: told after each token request whether it brought a token.
    package init(fetch: @escaping Fetch, clock: GatewayClock = .system,
                recorder: (any FactRecorder)? = nil) {
        self.fetch = fetch
        self.clock = clock
        self.recorder = recorder
    }

    package func token() async throws(GatewayError) -> BearerToken {
        if let ready = state.withLock({ ready(&$0) }) { return try ready.get() }
        let result = await withCheckedContinuation { (waiter: Waiter) in
            let (immediate, start) = state.withLock { state -> (Result<BearerToken, GatewayError>?, Bool) in
                if let ready = ready(&state) { return (ready, false) }
                state.waiters.append(waiter)
                defer { state.fetching = true }
                return (nil, !state.fetching)
            }
            if let immediate { waiter.resume(returning: immediate) }
            if start { startFetch() }
        }
        return try result.get()
    }

    /// The answer without waiting: the cached token (starting a background
    /// refresh when it is due), or the last failure while its backoff runs;
    /// `nil` when the caller must wait for a fetch.
    private func ready(_ state: inout State) -> Result<BearerToken, GatewayError>? {
        let time = clock.monotonicNanoseconds()
        if let token = state.token, time < state.expiresAt {
            if time >= state.refreshAt, !state.fetching, time >= state.retryAt {
                state.fetching = true
                startFetch()
            }
            return .success(token)
        }
        if let failure = state.failure, time < state.retryAt { return .failure(failure) }
        return nil
    }

    package func rejected(_ token: BearerToken) {
        state.withLock { state in
            guard state.token?.generation == token.generation else { return }
            state.token = nil
            state.expiresAt = 0
        }
    }

    /// Runs the one fetch in its own task, so a cancelled caller never strands the others.
    private func startFetch() {
        Task { await self.fetchAndPublish() }
    }

    private func fetchAndPublish() async {
        let outcome = await fetch()
        let time = clock.monotonicNanoseconds()
        let (waiters, result) = state.withLock { state -> ([Waiter], Result<BearerToken, GatewayError>) in
            state.fetching = false
            let waiters = state.waiters
            state.waiters = []
            switch outcome {
            case .success(let response):
                state.generation += 1
                let token = BearerToken(value: response.accessToken, generation: state.generation)
                let lifetime = response.lifetime?.nanoseconds ?? Self.assumedLifetime
                state.token = token
                state.expiresAt = time + lifetime
                state.refreshAt = time + lifetime - min(Self.maximumMargin, lifetime / 5)
                state.failure = nil
                state.failures = 0
                state.retryAt = 0
                return (waiters, .success(token))
            case .failure(let error):
                state.failures += 1
                state.failure = error
                state.retryAt = time + Self.backoff.delay(forAttempt: state.failures - 1).nanoseconds
                return (waiters, .failure(error))
            }
        }
        recorder?.record(.upstreamTokenRefreshed(succeeded: result.isSuccess))
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// A token without `expires_in` is used for an hour, or until a 401.
    static let assumedLifetime: UInt64 = 3_600_000_000_000
    /// A token is refreshed a fifth of its lifetime before it expires, at most a minute before.
    static let maximumMargin: UInt64 = 60_000_000_000

    /// The wait after failure n + 1: 1 s after the first, doubling, at most 30 s.
    static let backoff = Backoff(initialDelay: .seconds(1), maximumDelay: .seconds(30), jitter: .none)
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
