import GQLGateMetrics
import GQLGatePipeline

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
