import GQLGateExchanges
import GQLGateMetrics

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
