import GQLGateExchanges
import GQLGateMetrics

extension RetryLabel {
    /// The metric label of a retry the retry exchange decided on.
    init(_ reason: RetryReason) {
        switch reason {
        case .status: self = .status
        case .notReached: self = .unreachable
        case .timedOut: self = .timeout
        case .connectionLost: self = .connectionError
        }
    }
}

extension TokenRefreshOutcome {
    init(succeeded: Bool) {
        self = succeeded ? .ok : .failed
    }
}

extension PersistedDocumentLabel {
    init(_ outcome: PersistedDocumentOutcome) {
        switch outcome {
        case .idFound: self = .idFound
        case .idUnknown: self = .idUnknown
        case .listedText: self = .listedText
        case .unlistedText: self = .unlistedText
        case .refused: self = .refused
        }
    }
}
