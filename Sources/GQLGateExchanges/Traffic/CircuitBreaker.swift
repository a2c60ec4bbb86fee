import GQLGateCore
import GQLGatePipeline
import Synchronization

/// `upstream.circuit_breaker`: counts upstream attempts and their failures
/// over a rolling window (ten buckets of a tenth of it each); opens when at
/// least `minRequests` attempts in the window failed in at least
/// `errorRatio`; while open, refuses every attempt for `openFor`; then lets
/// one probe through (half-open), whose outcome closes it or opens it again.
/// `CircuitBreakerStage` asks it before each attempt; the transport's
/// attempt observer tells it each attempt's outcome (`record(_:)`).
public final class CircuitBreaker: Sendable {
    /// The breaker's state, with `gqlgate_circuit_state`'s numbers.
    public enum State: Int, Sendable, Equatable {
        case closed = 0
        case open = 1
        case halfOpen = 2
    }

    /// Whether an attempt may go to the upstream.
    public enum Admission: Sendable, Equatable {
        /// It may; `probe`: it is the half-open breaker's one probe.
        case admitted(probe: Bool)
        /// It may not, for `retryAfter`.
        case refused(retryAfter: Duration)
    }

    public struct Settings: Sendable {
        public var errorRatio: Double
        public var minRequests: Int
        public var window: Duration
        public var openFor: Duration

        public init(errorRatio: Double = 0.5, minRequests: Int = 20, window: Duration = .seconds(10), openFor: Duration = .seconds(5)) {
            self.errorRatio = errorRatio
            self.minRequests = minRequests
            self.window = window
            self.openFor = openFor
        }
    }

    static let bucketCount = 10

    private struct Counts {
        var state = State.closed
        /// Attempts and failures per bucket, bucket `i` covering its `bucketWidth`s numbered `i` modulo `bucketCount`.
        var attempts = [Int](repeating: 0, count: CircuitBreaker.bucketCount)
        var failures = [Int](repeating: 0, count: CircuitBreaker.bucketCount)
        /// The number (time / bucketWidth) of the newest bucket.
        var newestBucket: UInt64 = 0
        /// Until when the open breaker refuses (monotonic nanoseconds).
        var openUntil: UInt64 = 0
        var probing = false
    }

    private let settings: Settings
    private let bucketWidth: UInt64
    private let counts = Mutex(Counts())
    private let clock: GatewayClock
    private let onChange: @Sendable (State) -> Void

    /// - Parameter onChange: told every new state (metrics), outside the breaker's lock.
    public init(settings: Settings, clock: GatewayClock = .system, onChange: @escaping @Sendable (State) -> Void = { _ in }) {
        self.settings = settings
        bucketWidth = max(1, settings.window.nanoseconds / UInt64(Self.bucketCount))
        self.clock = clock
        self.onChange = onChange
    }

    /// The state now (an open breaker whose time is over counts as half-open).
    public var state: State {
        let now = clock.monotonicNanoseconds()
        return counts.withLock { $0.state == .open && now >= $0.openUntil ? .halfOpen : $0.state }
    }

    /// How long the breaker stays open from now; nil when it is not open (or its open time is over).
    public var openTimeLeft: Duration? {
        let now = clock.monotonicNanoseconds()
        return counts.withLock { $0.state == .open && now < $0.openUntil ? .nanoseconds(Int64($0.openUntil - now)) : nil }
    }

    /// Whether an attempt may go now.
    public func admit() -> Admission {
        let now = clock.monotonicNanoseconds()
        let (admission, changed) = counts.withLock { counts -> (Admission, State?) in
            switch counts.state {
            case .closed:
                return (.admitted(probe: false), nil)
            case .open where now < counts.openUntil:
                return (.refused(retryAfter: .nanoseconds(Int64(counts.openUntil - now))), nil)
            case .open, .halfOpen:
                guard !counts.probing else { return (.refused(retryAfter: .seconds(1)), nil) }
                counts.probing = true
                let changed: State? = counts.state == .open ? .halfOpen : nil
                counts.state = .halfOpen
                return (.admitted(probe: true), changed)
            }
        }
        if let changed { onChange(changed) }
        return admission
    }

    /// The upstream answers that count as failures.
    static let failingStatuses: Set<Int> = [502, 503, 504]

    /// An attempt ended with the upstream's status, or with the error that
    /// ended it: 502, 503, 504 and `UpstreamFailure`s (connection errors,
    /// timeouts) are failures, other statuses and an answer too large to
    /// take (the upstream did answer) successes, other errors (cancellation,
    /// a deadline passed before sending) tell nothing.
    public func record(_ outcome: Result<Int, any Error>) {
        switch outcome {
        case .success(let status): record(failed: Self.failingStatuses.contains(status))
        case .failure(let failure as UpstreamFailure): record(failed: failure.kind != .answerTooLarge)
        case .failure: record(failed: nil)
        }
    }

    /// An admitted attempt ended: `failed` when the upstream failed it; nil
    /// when it ended without telling. While half-open, the first outcome
    /// told is taken as the probe's.
    public func record(failed: Bool?) {
        let now = clock.monotonicNanoseconds()
        let changed = counts.withLock { counts -> State? in
            if counts.state == .halfOpen, counts.probing {
                counts.probing = false
                guard let failed else { return nil }
                return failed ? open(&counts, now: now) : close(&counts)
            }
            guard counts.state == .closed, let failed else { return nil }
            advance(&counts, to: now / bucketWidth)
            let bucket = Int((now / bucketWidth) % UInt64(Self.bucketCount))
            counts.attempts[bucket] += 1
            guard failed else { return nil }
            counts.failures[bucket] += 1
            let attempts = counts.attempts.reduce(0, +)
            guard attempts >= settings.minRequests,
                  Double(counts.failures.reduce(0, +)) >= settings.errorRatio * Double(attempts) else { return nil }
            return open(&counts, now: now)
        }
        if let changed { onChange(changed) }
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
        }
        counts.newestBucket = bucket
    }
}
