@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// `upstream.circuit_breaker`: counts upstream attempts and their failures
/// over a rolling window (ten buckets of a tenth of it each), by client;
/// opens when at least `minRequests` attempts in the window failed in at
/// least `errorRatio`, and no one client made more than half of those
/// failures (one client's queries that fail, or that are slow, cannot shut
/// the upstream off for everyone); while open, refuses every attempt for
/// `openFor`; then sends a probe of its own (`{ __typename }`, never a
/// client's request), refusing clients meanwhile (half-open), whose outcome
/// closes it or opens it again. `CircuitBreakerExchange` asks it before each
/// attempt and tells it the attempt's outcome.
package final class CircuitBreaker: Sendable {
    /// The breaker's state, with `gqlgate_circuit_state`'s numbers.
    package enum State: Int, Sendable, Equatable {
        case closed = 0
        case open = 1
        case halfOpen = 2
    }

    /// Whether an attempt may go to the upstream.
    package enum Admission: Sendable, Equatable {
        /// It may.
        case admitted
        /// It may not, for `retryAfter`.
        case refused(retryAfter: Duration)
    }

    package struct Settings: Sendable {
        package var errorRatio: Double
        package var minRequests: Int
        package var window: Duration
        package var openFor: Duration

        package init(errorRatio: Double = 0.5, minRequests: Int = 20, window: Duration = .seconds(10), openFor: Duration = .seconds(5)) {
            self.errorRatio = errorRatio
            self.minRequests = minRequests
            self.window = window
            self.openFor = openFor
        }
    }

    static let bucketCount = 10
    /// Clients whose failures are told apart in one bucket; the failures of
    /// more are counted, each as a client of its own.
    static let clientsPerBucket = 256

    private struct Counts {
        var state = State.closed
        /// Attempts and failures per bucket, bucket `i` covering its `bucketWidth`s numbered `i` modulo `bucketCount`.
        var attempts = [Int](repeating: 0, count: CircuitBreaker.bucketCount)
        var failures = [Int](repeating: 0, count: CircuitBreaker.bucketCount)
        /// Failures per client, per bucket.
        var clientFailures = [[String: Int]](repeating: [:], count: CircuitBreaker.bucketCount)
        /// The number (time / bucketWidth) of the newest bucket.
        var newestBucket: UInt64 = 0
        /// Until when the open breaker refuses (monotonic nanoseconds).
        var openUntil: UInt64 = 0
        var probing = false
    }

    private let settings: Settings
    private let bucketWidth: UInt64
    private let counts = Lock(Counts())
    private let clock: GatewayClock
    private let probe: @Sendable () async -> Bool
    private let executor: @Sendable () -> (any TaskExecutor)?
    private let recorder: (any FactRecorder)?

    /// - Parameters:
    ///   - probe: asks the upstream something of gqlgate's own; true when it answered
    ///     (with a status other than 502, 503 and 504).
    ///   - executor: where the probe runs (a gateway loop); nil: the global pool.
    ///   - recorder: told every new state (`GatewayFact.circuitStateChanged`), outside the breaker's lock.
    package init(settings: Settings, clock: GatewayClock = .system, probe: @escaping @Sendable () async -> Bool,
                executor: @escaping @Sendable () -> (any TaskExecutor)? = { nil }, recorder: (any FactRecorder)? = nil) {
        self.settings = settings
        bucketWidth = max(1, settings.window.nanoseconds / UInt64(Self.bucketCount))
        self.clock = clock
        self.probe = probe
        self.executor = executor
        self.recorder = recorder
    }

    /// The state now (an open breaker whose time is over counts as half-open).
    package var state: State {
        let now = clock.monotonicNanoseconds()
        return counts.withLock { $0.state == .open && now >= $0.openUntil ? .halfOpen : $0.state }
    }

    /// How long the breaker stays open from now; nil when it is not open (or its open time is over).
    package var openTimeLeft: Duration? {
        let now = clock.monotonicNanoseconds()
        return counts.withLock { $0.state == .open && now < $0.openUntil ? .nanoseconds(Int64($0.openUntil - now)) : nil }
    }

    /// Whether an attempt may go now. The first ask after the open time
    /// starts the breaker's own probe.
    package func admit() -> Admission {
        let now = clock.monotonicNanoseconds()
        let (admission, changed, startsProbe) = counts.withLock { counts -> (Admission, State?, Bool) in
            switch counts.state {
            case .closed:
                return (.admitted, nil, false)
            case .open where now < counts.openUntil:
                return (.refused(retryAfter: .nanoseconds(Int64(counts.openUntil - now))), nil, false)
            case .open, .halfOpen:
                guard !counts.probing else { return (.refused(retryAfter: .seconds(1)), nil, false) }
                counts.probing = true
                let changed: State? = counts.state == .open ? .halfOpen : nil
                counts.state = .halfOpen
                return (.refused(retryAfter: .seconds(1)), changed, true)
            }
        }
        if let changed { recorder?.record(.circuitStateChanged(changed.rawValue)) }
        if startsProbe {
            Task(executorPreference: executor()) { self.probeEnded(answered: await self.probe()) }
        }
        return admission
    }

    /// The probe's outcome: the upstream answered, so the breaker closes; else it opens again.
    private func probeEnded(answered: Bool) {
        let now = clock.monotonicNanoseconds()
        let changed = counts.withLock { counts -> State in
            counts.probing = false
            return answered ? close(&counts) : open(&counts, now: now)
        }
        recorder?.record(.circuitStateChanged(changed.rawValue))
    }

    /// The upstream answers that count as failures.
    static let failingStatuses: Set<Int> = [502, 503, 504]

    /// Whether an attempt that ended with `outcome` failed: answers with
    /// 502, 503 and 504 and failures without an answer (connection errors,
    /// timeouts) did, other statuses and an answer too large to take (the
    /// upstream did answer) did not; nil for a cancelled attempt (the client
    /// went away, a deadline passed before sending), which tells nothing.
    package static func failed(_ outcome: UpstreamAttemptOutcome) -> Bool? {
        switch outcome {
        case .answered(let status): failingStatuses.contains(status)
        case .failed, .cancelled: outcome.upstreamAnswered.map { !$0 }
        }
    }

    /// An admitted attempt of `client` (a key or an address; nil: unknown)
    /// ended: `failed` when the upstream failed it. Counted while closed.
    package func record(failed: Bool, client: String?) {
        let now = clock.monotonicNanoseconds()
        let changed = counts.withLock { counts -> State? in
            guard counts.state == .closed else { return nil }
            advance(&counts, to: now / bucketWidth)
            let bucket = Int((now / bucketWidth) % UInt64(Self.bucketCount))
            counts.attempts[bucket] += 1
            guard failed else { return nil }
            counts.failures[bucket] += 1
            let name = client ?? ""
            if counts.clientFailures[bucket][name] != nil || counts.clientFailures[bucket].count < Self.clientsPerBucket {
                counts.clientFailures[bucket][name, default: 0] += 1
            }
            let attempts = counts.attempts.reduce(0, +)
            let failures = counts.failures.reduce(0, +)
            guard attempts >= settings.minRequests, Double(failures) >= settings.errorRatio * Double(attempts),
                  2 * mostFailuresOfOneClient(counts) <= failures else { return nil }
            return open(&counts, now: now)
        }
        if let changed { recorder?.record(.circuitStateChanged(changed.rawValue)) }
    }

    /// The failures in the window of the client that made the most.
    private func mostFailuresOfOneClient(_ counts: Counts) -> Int {
        var total: [String: Int] = [:]
        for bucket in counts.clientFailures {
            for (client, failures) in bucket { total[client, default: 0] += failures }
        }
        return total.values.max() ?? 0
    }

    private func open(_ counts: inout Counts, now: UInt64) -> State {
        counts.state = .open
        counts.openUntil = now + settings.openFor.nanoseconds
        return .open
    }

    private func close(_ counts: inout Counts) -> State {
        counts.state = .closed
        for index in 0..<Self.bucketCount {
            counts.attempts[index] = 0
            counts.failures[index] = 0
            counts.clientFailures[index] = [:]
        }
        return .closed
    }

    /// Empties the buckets that fell out of the window since the newest one.
    private func advance(_ counts: inout Counts, to bucket: UInt64) {
        guard bucket > counts.newestBucket else { return }
        let stale = min(bucket - counts.newestBucket, UInt64(Self.bucketCount))
        for step in 1...stale {
            let index = Int((counts.newestBucket + step) % UInt64(Self.bucketCount))
            counts.attempts[index] = 0
            counts.failures[index] = 0
            counts.clientFailures[index] = [:]
        }
        counts.newestBucket = bucket
    }
}
