import GQLGatePipeline

/// Identical queries in flight at the same time, in the same scope, share one
/// upstream request: the first goes on, the others wait for its answer, and
/// each gets the same status, headers and body (with its own
/// `X-Request-Id`). Identical means the same `RequestKey`: normalised
/// document, operation name, canonical variables and the values of the vary
/// headers. Mutations and subscriptions are forwarded untouched. A caller
/// that is cancelled leaves without disturbing the others; the shared request
/// is cancelled only when no caller waits for it any more (`SharedCalls`).
/// Place after the response cache, before the transport.
public struct DedupeExchange: Exchange {
    private let varyHeaders: [String]
    private let calls: SharedCalls<RequestKey, GraphQLResponse>

    /// - Parameters:
    ///   - varyHeaders: the header names that make the scope (`cache.vary_headers`).
    ///   - calls: where requests in flight are tracked (shared by every loop).
    public init(varyHeaders: [String] = ["authorization"], calls: SharedCalls<RequestKey, GraphQLResponse> = SharedCalls()) {
        self.varyHeaders = varyHeaders
        self.calls = calls
    }

    public func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        guard operation.kind == .query else { return try await next(operation) }
        let key = RequestKey(operation: operation, varyHeaders: varyHeaders)
        let response = try await calls.value(for: key) {
            guard let response = try await next(operation).first() else {
                throw GatewayError.noResult
            }
            return response
        }
        return .single(response)
    }
}
