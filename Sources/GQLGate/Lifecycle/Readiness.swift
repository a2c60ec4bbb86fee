import GQLGateConfig
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import Synchronization

/// Where and how `/readyz` probes the upstream: a `{ __typename }` query.
struct ReadinessProbe: Sendable {
    /// The longest a probe takes, whatever the upstream does (the contract: `/readyz` answers
    /// within 2 s; the rest is margin).
    static let timeLimit = Duration.milliseconds(1500)

    var url: String
    var timeout: Duration
    var connectTimeout: Duration

    /// The probe of `upstream.url`, with its timeouts cut to ``timeLimit``.
    init(upstream: UpstreamConfig) {
        url = upstream.url ?? ""
        timeout = min(upstream.timeout, Self.timeLimit)
        connectTimeout = min(upstream.connectTimeout, Self.timeLimit)
    }

    static let body = Bytes("{\"query\":\"{ __typename }\"}")
    static let headers: HTTPHeaders = ["Content-Type": "application/json", "Accept": "application/json", "X-Request-Id": "gqlgate-readiness-probe"]

    var request: HTTPClientRequest {
        HTTPClientRequest(url: url, method: .post, headers: Self.headers, body: Self.body, timeout: timeout, connectTimeout: connectTimeout)
    }
}

/// The gateway's readiness: evidence from real upstream calls (atomics,
/// written on every upstream answer), one probe at a time when the evidence
/// is stale, and the drain flag. Decisions come from `ReadinessState`.
final class Readiness: Sendable {
    private struct ProbeState {
        var result: (ok: Bool, at: UInt64)?
        var running: Task<Bool, Never>?
    }

    private let client: HTTPClient
    private let clock: GatewayClock
    /// Monotonic time of the last upstream answer; 0: none.
    private let lastAnswer = Atomic<UInt64>(0)
    /// Monotonic time of the last upstream failure; 0: none.
    private let lastFailure = Atomic<UInt64>(0)
    private let draining = Atomic<Bool>(false)
    private let probe = Lock(ProbeState())

    init(client: HTTPClient, clock: GatewayClock = .system) {
        self.client = client
        self.clock = clock
    }

    /// The upstream gave an HTTP answer (any status) at `time`.
    func upstreamAnswered(at time: UInt64) {
        lastAnswer.store(time, ordering: .relaxed)
    }

    /// An upstream attempt got no answer (unreachable, failed, timed out) at `time`.
    func upstreamFailed(at time: UInt64) {
        lastFailure.store(time, ordering: .relaxed)
    }

    /// From now on `/readyz` answers 503.
    func startDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// Forgets all evidence (the upstream changed on reload).
    func reset() {
        lastAnswer.store(0, ordering: .relaxed)
        lastFailure.store(0, ordering: .relaxed)
        probe.withLock { $0.result = nil }
    }

    /// The decision from the evidence at hand; `.probe` when there is none.
    func decision() -> ReadinessState.Decision {
        var state = ReadinessState()
        state.draining = draining.load(ordering: .relaxed)
        let answer = lastAnswer.load(ordering: .relaxed), failure = lastFailure.load(ordering: .relaxed)
        state.lastAnswer = answer == 0 ? nil : answer
        state.lastFailure = failure == 0 ? nil : failure
        state.lastProbe = probe.withLock { $0.result }
        return state.decision(now: clock.monotonicNanoseconds())
    }

    /// Probes the upstream (joining the probe in flight, if any) and decides by its result.
    func decisionAfterProbe(_ target: ReadinessProbe) async -> ReadinessState.Decision {
        let task = probe.withLock { state -> Task<Bool, Never> in
            if let running = state.running { return running }
            // On the caller's loop: a probe must not wait for a busy global pool.
            let started = Task(executorPreference: EventLoop.current) { await self.runProbe(target) }
            state.running = started
            return started
        }
        let ok = await task.value
        return draining.load(ordering: .relaxed) ? .draining : ok ? .ready : .notReady
    }

    private func runProbe(_ target: ReadinessProbe) async -> Bool {
        let ok: Bool
        do {
            _ = try await client.execute(target.request)
            ok = true
        } catch {
            ok = false
        }
        let finished = clock.monotonicNanoseconds()
        probe.withLock {
            $0.result = (ok, finished)
            $0.running = nil
        }
        return ok
    }
}
