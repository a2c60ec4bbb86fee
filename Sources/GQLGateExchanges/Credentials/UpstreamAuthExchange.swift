@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// Adds gqlgate's upstream credentials to every upstream request: the
/// static `auth.headers`, and `Authorization: Bearer` from a token source
/// (token file or OAuth2). With `refreshOnUnauthorized`, an upstream 401 —
/// which means the upstream did not run the operation — retires the token,
/// gets a fresh one and sends the operation once more, mutations included.
/// When no token can be had, the client gets 502 `UPSTREAM_AUTH_FAILED`
/// with a message that names nothing of the gateway's (no endpoint, no
/// file); what went wrong goes to `onFailure`, for the log.
/// Place before `RetryExchange`.
package struct UpstreamAuthExchange: Exchange {
    private let staticHeaders: HTTPHeaders
    private let tokens: (any BearerTokenSource)?
    private let refreshOnUnauthorized: Bool
    private let onFailure: @Sendable (String) -> Void

    /// What a client is told when no token can be had.
    package static let failure = GatewayError.upstreamAuthFailed("gqlgate could not get its credentials for the upstream; its log says why.")

    /// - Parameters:
    /// - Parameter onFailure: told why no token could be had (the token source's message, without secrets).
    package init(staticHeaders: [HTTPHeaders.Field], tokens: (any BearerTokenSource)?, refreshOnUnauthorized: Bool,
                onFailure: @escaping @Sendable (String) -> Void = { _ in }) {
        self.staticHeaders = HTTPHeaders(staticHeaders)
        self.tokens = tokens
        self.refreshOnUnauthorized = refreshOnUnauthorized
        self.onFailure = onFailure
    }

    /// A token from `tokens`, or the client's error, with the reason told to `onFailure`.
    private func fetchToken(from tokens: any BearerTokenSource) async throws(GatewayError) -> BearerToken {
        do {
            return try await tokens.token()
        } catch {
            onFailure(error.message)
            throw Self.failure
        }
    }

    package func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        var operation = operation
        if operation.upstreamHeaders.isEmpty {
            operation.upstreamHeaders = staticHeaders
        } else {
            for field in staticHeaders {
                operation.upstreamHeaders.replaceOrAdd(name: field.name, value: field.value)
            }
        }
        guard let tokens else { return try await next(operation) }
        let waitStart = operation.facts?.isSampled != true ? 0 : GatewayClock.system.monotonicNanoseconds()  // timed only when traced
        let token = try await fetchToken(from: tokens)
        if waitStart != 0 { operation.record(.waited(.token, start: waitStart, end: GatewayClock.system.monotonicNanoseconds())) }
        operation.upstreamHeaders.replaceOrAdd(name: "Authorization", value: "Bearer " + token.value)
        let results = try await next(operation)
        guard refreshOnUnauthorized, operation.kind == .query || operation.kind == .mutation else { return results }
        guard let answer = try await results.first() else { return results }
        guard answer.status == 401 else { return .single(answer) }
        tokens.rejected(token)
        let fresh = try await fetchToken(from: tokens)
        guard fresh != token else { return .single(answer) }
        operation.upstreamHeaders.replaceOrAdd(name: "Authorization", value: "Bearer " + fresh.value)
        operation.record(.retrying(.unauthorized))
        return try await next(operation)
    }

    /// The credential headers to send instead of `refused` (which the upstream
    /// refused, say by closing a WebSocket with 4401 or 4403): the static
    /// headers, and a fresh token when `refused` carried the current one.
    /// Keeps `refused`'s token when no other can be had.
    package func freshCredentials(replacing refused: HTTPHeaders) async -> HTTPHeaders {
        var headers = refused
        for field in staticHeaders {
            headers.replaceOrAdd(name: field.name, value: field.value)
        }
        guard let tokens, let current = try? await tokens.token() else { return headers }
        if refused["authorization"] == "Bearer " + current.value { tokens.rejected(current) }
        if let fresh = try? await tokens.token() {
            headers.replaceOrAdd(name: "Authorization", value: "Bearer " + fresh.value)
        }
        return headers
    }
}
