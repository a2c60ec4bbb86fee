/// How one upstream attempt ended: the one value every reader of attempts
/// takes (metrics, readiness, the circuit breaker, the attempt's span), made
/// from what the attempt returned or threw (`init(error:)`).
package enum UpstreamAttemptOutcome: Sendable, Equatable {
    /// The upstream answered, with any status.
    case answered(status: Int)
    /// The upstream gave no answer, or none that could be taken.
    case failed(UpstreamFailure.Kind)
    /// The attempt ended without the upstream's say: the client went away
    /// (`CancellationError`), or the gateway stopped it before the request
    /// left (the operation's deadline had passed; a stage refused it).
    case cancelled

    /// The outcome of an attempt that threw `error`: an `UpstreamFailure`
    /// failed with its kind; anything else (cancellation, a `GatewayError`)
    /// tells nothing of the upstream, and counts as `cancelled`.
    package init(error: any Error) {
        self = if let failure = error as? UpstreamFailure { .failed(failure.kind) } else { .cancelled }
    }

    /// What metrics print (`outcome` of `gqlgate_upstream_requests_total`):
    /// `ok` for an answer below 400, `http_error` for one of 400 or more,
    /// a failure's `Kind.label`, `cancelled`.
    package var label: String {
        switch self {
        case .answered(let status): status < 400 ? "ok" : "http_error"
        case .failed(let kind): kind.label
        case .cancelled: "cancelled"
        }
    }

    /// Every `label`, each once.
    package static let labels: [String] =
        ([.answered(status: 200), .answered(status: 400), .cancelled] + UpstreamFailure.Kind.allCases.map(Self.failed)).map(\.label)

    /// What the attempt says of the upstream: true when it answered (an
    /// answer too large to take included: it ran the request), false when
    /// it failed to, nil when the attempt was cancelled.
    package var upstreamAnswered: Bool? {
        switch self {
        case .answered, .failed(.answerTooLarge): true
        case .failed: false
        case .cancelled: nil
        }
    }
}

/// Why an upstream attempt is made again (`reason` of `gqlgate_retries_total`):
/// the retry exchange's `RetryPolicy` gives `status` and `failure`, the
/// credentials exchange `unauthorized`.
package enum RetryReason: Sendable, Equatable {
    /// The upstream answered with a status in `retry.on_status`.
    case status(Int)
    /// The attempt failed without an answer (never `answerTooLarge`: the same answer would come again).
    case failure(UpstreamFailure.Kind)
    /// The upstream answered 401 and the operation goes again with fresh credentials (`auth.refresh_on_401`).
    case unauthorized

    /// What metrics print: `status`, a failure's `Kind.label`, `unauthorized`.
    package var label: String {
        switch self {
        case .status: "status"
        case .failure(let kind): kind.label
        case .unauthorized: "unauthorized"
        }
    }

    /// Every `label` a retry is made for, each once.
    package static let labels: [String] =
        ([.status(0), .unauthorized] + UpstreamFailure.Kind.allCases.filter { $0 != .answerTooLarge }.map(Self.failure)).map(\.label)
}
