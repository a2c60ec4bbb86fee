@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// Tries queries again when the upstream fails transiently — connection
/// errors, per-attempt timeouts, statuses in `retry.on_status` — with
/// full-jitter backoff, `Retry-After` and a shared retry budget, all within
/// one overall deadline. Mutations are tried again only when the request
/// provably never left (`RetryPolicy`). Place after the credentials exchange
/// and before the transport. Subscriptions pass through.
package struct RetryExchange: Exchange {
    private let policy: RetryPolicy
    private let budget: RetryBudget
    private let clock: GatewayClock
    private let sleep: @Sendable (Duration) async throws -> Void
    private let backoff: Backoff

    /// - Parameters:
    ///   - clock: deadlines and `Retry-After` dates; `sleep` and `random` (numbers in `0...1`) are the waits and the jitter (injected by tests).
    ///   - sleep: the waits (`Task.sleep` unless given; the gateway waits on its loops' timers).
    package init(policy: RetryPolicy, budget: RetryBudget, clock: GatewayClock = .system,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.policy = policy
        self.budget = budget
        self.clock = clock
        self.sleep = sleep
        backoff = policy.backoff(random: random)
    }

    package func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        guard operation.kind == .query || operation.kind == .mutation else { return try await next(operation) }
        var operation = operation
        let start = clock.monotonicNanoseconds()
        budget.recordRequest(now: start)
        let deadline = start + policy.deadline.nanoseconds
        operation.deadline = min(operation.deadline ?? .max, deadline)

        var retries = 0
        while true {
            let outcome: Result<GraphQLResponse, UpstreamFailure>
            do {
                guard let answer = try await next(operation).first() else { return .single(noAnswer()) }
                outcome = .success(answer)
            } catch let failure as UpstreamFailure {
                outcome = .failure(failure)
            }
            guard retries + 1 < policy.maxAttempts, let reason = reason(toRetry: outcome, kind: operation.kind),
                  let delay = delay(beforeRetry: retries, after: outcome),
                  clock.monotonicNanoseconds() + delay.nanoseconds < operation.deadline ?? .max,
                  budget.tryRetry(now: clock.monotonicNanoseconds())
            else { return .single(try outcome.get()) }
            operation.record(.retrying(reason))
            try await sleep(delay)
            retries += 1
        }
    }

    private func reason(toRetry outcome: Result<GraphQLResponse, UpstreamFailure>, kind: OperationKind?) -> RetryReason? {
        switch outcome {
        case .success(let answer): return policy.reason(toRetry: answer, kind: kind)
        case .failure(let failure): return policy.reason(toRetry: failure, kind: kind)
        }
    }

    /// The wait before the next try: the upstream's `Retry-After` when it
    /// sent one (`nil`, no retry, past `max_retry_after`), else full jitter.
    private func delay(beforeRetry n: Int, after outcome: Result<GraphQLResponse, UpstreamFailure>) -> Duration? {
        if case .success(let answer) = outcome, let header = answer.headers["retry-after"],
           let asked = RetryAfter.delay(header, nowEpochSeconds: clock.wallTime().components.seconds) {
            return asked <= policy.maxRetryAfter ? asked : nil
        }
        return backoff.delay(forAttempt: n)
    }

    private func noAnswer() -> GraphQLResponse {
        GatewayError.noResult.response()
    }
}
