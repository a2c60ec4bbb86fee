import GQLGateCore
import GQLGatePipeline
import GQLGateSubscriptions

/// Writes an incremental answer (`@defer`, `@stream`) as `multipart/mixed`
/// parts, each as soon as the upstream sent it, and ends the body:
/// - the results end: the close delimiter;
/// - the upstream fails before their end (timeout, connection lost, past
///   `upstream.max_response_bytes`, a part that is no JSON object): a last
///   part `{"errors": [...], "hasNext": false}`, then the close delimiter;
/// - the task is cancelled (drain) or the client is gone: the body ends
///   without its close delimiter, and the upstream request is ended.
struct IncrementalAnswerWriter: Sendable {
    let sink: any StreamSink

    /// Writes `first`, then each of `rest`, then finishes the sink.
    func run(first: Bytes, rest: SubsequentResults) async {
        guard sink.write(IncrementalDelivery.opening + IncrementalDelivery.part(first.string)) else { return sink.finish() }
        do {
            while let result = try await rest.next() {
                guard ResultStreamWriter.looksLikeJSONObject(result) else {
                    throw GatewayError.upstreamUnavailable("The upstream sent a part that is no GraphQL result.")
                }
                // The client is gone: returning drops the results, which ends the upstream request.
                guard sink.write(IncrementalDelivery.part(result.string)) else { return sink.finish() }
            }
            _ = sink.write(IncrementalDelivery.closing)
        } catch is CancellationError {
        } catch {
            _ = sink.write(IncrementalDelivery.failure(GatewayError(answering: error).graphQLErrors) + IncrementalDelivery.closing)
        }
        sink.finish()
    }
}
