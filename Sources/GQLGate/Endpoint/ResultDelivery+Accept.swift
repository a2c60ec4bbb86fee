import GQLGatePipeline
import GQLGateSubscriptions

extension ResultDelivery {
    /// The delivery a request's `Accept` header asks for: Apollo multipart
    /// (`multipart/mixed` with `subscriptionSpec=1.0`), else Server-Sent
    /// Events (`text/event-stream`), else one answer.
    static func requested(byAccept accept: String?) -> ResultDelivery {
        // Most requests ask for JSON: a byte scan skips the full parse for them.
        guard let accept, accept.containsIgnoringASCIICase("stream") || accept.containsIgnoringASCIICase("multipart") else {
            return .single
        }
        if MultipartSubscription.isAccepted(by: accept) { return .multipart }
        if ServerSentEvents.isAccepted(by: accept) { return .serverSentEvents }
        return .single
    }
}
