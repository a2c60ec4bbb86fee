@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// `upstream.max_concurrency`: each upstream attempt of a query or mutation
/// holds one of the `ConcurrencyLimit`'s places while it runs (an
/// incremental answer's until its last part came). Placed after
/// retries, so that each attempt waits for a place and none is held between
/// attempts; dedupe followers and cache hits never get here. Subscriptions
/// pass through.
package struct UpstreamConcurrencyExchange: Exchange {
    private let limit: ConcurrencyLimit

    package init(limit: ConcurrencyLimit) {
        self.limit = limit
    }

    package func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        guard operation.kind == .query || operation.kind == .mutation else { return try await next(operation) }
        let waitStart = operation.facts?.isSampled != true ? 0 : GatewayClock.system.monotonicNanoseconds()  // timed only when traced
        do {
            try await limit.acquire()
            if waitStart != 0 { operation.record(.waited(.upstreamQueue, start: waitStart, end: GatewayClock.system.monotonicNanoseconds())) }
        } catch let error as GatewayError {
            operation.record(.shed(.overloaded))
            throw error
        }
        var answer: GraphQLResponse
        do {
            guard let first = try await next(operation).first() else {
                limit.release()
                return ResultStream.single(noAnswer)
            }
            answer = first
        } catch {
            limit.release()
            throw error
        }
        // The upstream request goes on while the rest of an incremental answer comes.
        guard let rest = answer.subsequentResults else {
            limit.release()
            return .single(answer)
        }
        answer.subsequentResults = rest.whenOver { limit.release() }
        return .single(answer)
    }

    private var noAnswer: GraphQLResponse {
        GatewayError.upstreamUnavailable("The upstream sent no result.").response()
    }
}
