import GQLGateHTTPClient
import GQLGatePipeline

extension UpstreamFailure {
    /// What a failed libcurl transfer means for the request, the kind of the
    /// same name; nil when the transfer was cancelled (which is not a failure
    /// of the upstream). The one place an `HTTPClientError` becomes an
    /// `UpstreamFailure`.
    init?(_ error: HTTPClientError) {
        let kind: Kind
        switch error.kind {
        case .notReached: kind = .notReached
        case .timedOut: kind = .timedOut
        case .failedAfterSend: kind = .failedAfterSend
        case .answerTooLarge: kind = .answerTooLarge
        case .cancelled: return nil
        }
        self.init(kind: kind, message: error.message, description: error.description)
    }
}
