package import GQLGatePipeline
import Synchronization

/// Identical queries in flight at the same time share one upstream request:
/// the first goes on, the others wait for its answer, and each gets the same
/// status, headers and body (with its own `X-Request-Id`). Identical means
/// the same `RequestKey`: normalised document, operation name, canonical
/// variables, the scope and every client field the upstream is sent
/// (`KeyHeaders`). An answer that is one client's (`Set-Cookie`, or a `Vary`
/// on a field left out of the key) is not shared: each waiting caller sends
/// its own request. Mutations, subscriptions and operations using `@defer`
/// or `@stream` (whose parts one client reads as they come) are forwarded untouched. A
/// caller that is cancelled leaves without disturbing the others; the shared
/// request is cancelled only when no caller waits for it any more
/// (`SharedCalls`). Place after the response cache, before the transport.
package struct DedupeExchange: Exchange {
    /// An answer, and which caller's request it was sent for.
    package struct SharedAnswer: Sendable {
        let response: GraphQLResponse
        let caller: UInt64
    }

    private let keyHeaders: KeyHeaders
    private let calls: SharedCalls<RequestKey, SharedAnswer>
    private let callers = CallerNumbers()

    /// - Parameters:
    ///   - keyHeaders: the client fields in the key.
    ///   - calls: where requests in flight are tracked (shared by every loop).
    package init(keyHeaders: KeyHeaders = KeyHeaders(), calls: SharedCalls<RequestKey, SharedAnswer> = SharedCalls()) {
        self.keyHeaders = keyHeaders
        self.calls = calls
    }

    package func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        guard operation.kind == .query, !operation.defersResults else { return try await next(operation) }
        let key = RequestKey(operation: operation, headers: keyHeaders)
        let caller = callers.next()
        let shared = try await calls.value(for: key) {
            guard let response = try await next(operation).first() else {
                throw GatewayError.noResult
            }
            return SharedAnswer(response: response, caller: caller)
        }
        if shared.caller != caller, !keyHeaders.answerIsShareable(shared.response.headers) {
            return try await next(operation)
        }
        return .single(shared.response)
    }
}

/// Numbers the callers of one `DedupeExchange`, to tell the one whose request
/// an answer was sent for.
final class CallerNumbers: Sendable {
    private let last = Atomic<UInt64>(0)

    func next() -> UInt64 {
        last.add(1, ordering: .relaxed).newValue
    }
}
