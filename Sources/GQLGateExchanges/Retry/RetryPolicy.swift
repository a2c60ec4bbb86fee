package import GQLGateCore
package import GQLGatePipeline

/// The `retry` rules: which outcomes are retried for which operations, and
/// how long to wait before each retry.
package struct RetryPolicy: Sendable {
    /// Total tries, the first included.
    package var maxAttempts: Int
    /// The ceiling of the first retry's wait (full jitter: `Backoff`).
    package var baseDelay: Duration
    /// The largest ceiling of a wait.
    package var maxDelay: Duration
    package var onStatus: Set<Int>
    /// The longest `Retry-After` that is waited for; a longer one means no retry.
    package var maxRetryAfter: Duration
    /// Mutations are retried like queries.
    package var idempotentMutations: Bool
    /// How long one operation may take, all attempts and waits included.
    package var deadline: Duration

    package init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(2),
                onStatus: Set<Int> = [429, 502, 503, 504], maxRetryAfter: Duration = .seconds(5),
                idempotentMutations: Bool = false, deadline: Duration = .seconds(15)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.onStatus = onStatus
        self.maxRetryAfter = maxRetryAfter
        self.idempotentMutations = idempotentMutations
        self.deadline = deadline
    }

    /// Why a failed attempt may be retried, or `nil` when it must not be.
    /// A mutation is retried only when the request provably never left,
    /// unless `idempotentMutations`.
    package func reason(toRetry failure: UpstreamFailure, kind: OperationKind?) -> RetryReason? {
        switch failure.kind {
        case .notReached: .failure(.notReached)
        case .timedOut, .failedAfterSend: retriesSentRequests(kind) ? .failure(failure.kind) : nil
        case .answerTooLarge: nil
        }
    }

    /// Why an upstream answer may be retried, or `nil` when it goes to the client.
    package func reason(toRetry answer: GraphQLResponse, kind: OperationKind?) -> RetryReason? {
        guard onStatus.contains(answer.status), retriesSentRequests(kind) else { return nil }
        return .status(answer.status)
    }

    /// Queries always; mutations only when declared idempotent (the upstream may have run them).
    private func retriesSentRequests(_ kind: OperationKind?) -> Bool {
        kind == .query || (kind == .mutation && idempotentMutations)
    }

    /// Full jitter: before retry `n` (0 for the first retry) wait a random
    /// time in `0 ... min(maxDelay, baseDelay × 2ⁿ)`.
    /// - Parameter random: numbers in `0...1`, the jitter.
    package func backoff(random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) -> Backoff {
        Backoff(initialDelay: baseDelay, maximumDelay: maxDelay, jitter: .full, random: random)
    }
}
