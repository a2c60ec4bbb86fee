@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

/// Hands out `token-1`, `token-2`, ... — a new one after each rejection.
private final class CountingTokens: BearerTokenSource {
    private let state = Lock<(current: UInt64, rejections: Int)>((1, 0))

    var rejections: Int { state.withLock { $0.rejections } }

    func token() throws(GatewayError) -> BearerToken {
        let generation = state.withLock { $0.current }
        return BearerToken(value: "token-\(generation)", generation: generation)
    }

    func rejected(_ token: BearerToken) {
        state.withLock {
            $0.rejections += 1
            if $0.current == token.generation { $0.current += 1 }
        }
    }
}

/// The same token forever (a token file that did not change).
private struct FixedToken: BearerTokenSource {
    func token() throws(GatewayError) -> BearerToken { BearerToken(value: "fixed", generation: 1) }
    func rejected(_ token: BearerToken) {}
}

/// An upstream that answers 401 to the tokens in `refused` and 200 otherwise, recording what it got.
private final class TokenCheckingUpstream: Sendable {
    private let seen = Lock<[String]>([])
    let refused: Set<String>

    init(refusing refused: Set<String>) { self.refused = refused }

    var authorizations: [String] { seen.withLock { $0 } }

    var next: ExchangeNext {
        { operation in
            let authorization = operation.upstreamHeaders["Authorization"] ?? "-"
            self.seen.withLock { $0.append(authorization) }
            let status = self.refused.contains(authorization) ? 401 : 200
            return .single(GraphQLResponse(status: status, headers: [:], body: Bytes("\(status)"), source: .upstream))
        }
    }
}

private func status(_ exchange: UpstreamAuthExchange, _ operation: Operation, _ upstream: TokenCheckingUpstream) async throws -> Int {
    try await exchange.handle(operation, next: upstream.next).first()?.status ?? 0
}

@Suite struct UpstreamAuthExchangeTests {
    @Test func addsStaticHeadersAndTheBearerToken() async throws {
        let upstream = TokenCheckingUpstream(refusing: [])
        let exchange = UpstreamAuthExchange(
            staticHeaders: [HTTPHeaders.Field(name: "X-Api-Key", value: "k")], tokens: CountingTokens(), refreshOnUnauthorized: true)
        let recorder = RecordingNext()
        _ = try await exchange.handle(try analysedOperation(.query), next: recorder.next).first()
        let sent = try #require(recorder.operations.first).upstreamHeaders
        #expect(sent["X-Api-Key"] == "k")
        #expect(sent["Authorization"] == "Bearer token-1")
        #expect(try await status(exchange, try analysedOperation(.query), upstream) == 200)
    }

    @Test(arguments: [OperationKind.query, .mutation])
    func unauthorizedAnswerRefreshesOnceAndSendsOnceMore(kind: OperationKind) async throws {
        let tokens = CountingTokens()
        let upstream = TokenCheckingUpstream(refusing: ["Bearer token-1"])
        let exchange = UpstreamAuthExchange(staticHeaders: [], tokens: tokens, refreshOnUnauthorized: true)
        #expect(try await status(exchange, try analysedOperation(kind), upstream) == 200)
        #expect(upstream.authorizations == ["Bearer token-1", "Bearer token-2"])
        #expect(tokens.rejections == 1)
    }

    @Test func secondUnauthorizedAnswerGoesToTheClient() async throws {
        let upstream = TokenCheckingUpstream(refusing: ["Bearer token-1", "Bearer token-2", "Bearer token-3"])
        let exchange = UpstreamAuthExchange(staticHeaders: [], tokens: CountingTokens(), refreshOnUnauthorized: true)
        #expect(try await status(exchange, try analysedOperation(.query), upstream) == 401)
        #expect(upstream.authorizations.count == 2)
    }

    @Test func unchangedTokenIsNotSentAgain() async throws {
        let upstream = TokenCheckingUpstream(refusing: ["Bearer fixed"])
        let exchange = UpstreamAuthExchange(staticHeaders: [], tokens: FixedToken(), refreshOnUnauthorized: true)
        #expect(try await status(exchange, try analysedOperation(.query), upstream) == 401)
        #expect(upstream.authorizations.count == 1)
    }

    @Test func withoutRefreshOn401TheAnswerPassesThrough() async throws {
        let upstream = TokenCheckingUpstream(refusing: ["Bearer token-1"])
        let exchange = UpstreamAuthExchange(staticHeaders: [], tokens: CountingTokens(), refreshOnUnauthorized: false)
        #expect(try await status(exchange, try analysedOperation(.query), upstream) == 401)
        #expect(upstream.authorizations.count == 1)
    }

    @Test func staticCredentialsAloneNeverRetry() async throws {
        let upstream = TokenCheckingUpstream(refusing: ["-"])
        let exchange = UpstreamAuthExchange(
            staticHeaders: [HTTPHeaders.Field(name: "X-Api-Key", value: "k")], tokens: nil, refreshOnUnauthorized: true)
        #expect(try await status(exchange, try analysedOperation(.query), upstream) == 401)
        #expect(upstream.authorizations.count == 1)
    }
}
