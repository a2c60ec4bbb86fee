@_spi(GQLGateInternals) import GQLGateCore
import GQLGate
import GQLGateEventLoop
import GQLGateHTTPClient
import Testing

/// The extension point: a gateway assembled with exchanges of one's own.
@Suite(.serialized) struct CustomExchangeTests {
    @Test func ownExchangesSeeAnalysedOperationsAndCanAnswerThemselves() async throws {
        let log = LineLog()
        let answer = try await withGateway(exchanges: [.after(.limits, LoggingExchange(log: log)), .after(.limits, PingExchange())]) { ping in
            try await ping(["Content-Type": "application/json"])
        }
        #expect(answer.status == 200)
        #expect(answer.body.string == #"{"data":{"ping":"pong"}}"#)
        #expect(answer.headers["x-request-id"]?.count == 32)
        #expect(log.lines == ["→ query Ping", "← 200 from gateway"])
    }

    @Test func ownStagesRefuseOperationsBeforeTheRestSeesThem() async throws {
        let log = LineLog()
        try await withGateway(exchanges: [.after(.limits, RequireClientName()), .after(.limits, LoggingExchange(log: log)), .after(.limits, PingExchange())]) { ping in
            let refused = try await ping(["Content-Type": "application/json"])
            #expect(refused.status == 400)
            #expect(refused.body.string.contains("Name your client in apollographql-client-name."))
            #expect(log.lines.isEmpty)
            let named = try await ping(["Content-Type": "application/json", "apollographql-client-name": "ios"])
            #expect(named.status == 200)
            #expect(log.lines == ["→ query Ping", "← 200 from gateway"])
        }
    }

    @Test func anInlineCheckBeforeTheCacheRefusesAtOnceAndLetsHitsThrough() async throws {
        try await withGateway(exchanges: [.before(.cache, RequireClientNameAtOnce()), .after(.cache, PingExchange())], cache: true) { ping in
            let refused = try await ping(["Content-Type": "application/json"])
            #expect(refused.status == 400)
            #expect(refused.body.string.contains("Name your client in apollographql-client-name."))
            let named: HTTPHeaders = ["Content-Type": "application/json", "apollographql-client-name": "ios"]
            #expect(try await ping(named).headers["x-cache"] == "MISS")
            let hit = try await ping(named)
            #expect(hit.headers["x-cache"] == "HIT")
            #expect(hit.body.string == #"{"data":{"ping":"pong"}}"#)
        }
    }

    @Test func anExchangeBeforeTheCacheSeesCacheHits() async throws {
        let log = LineLog()
        try await withGateway(exchanges: [.before(.cache, LoggingExchange(log: log)), .after(.cache, PingExchange())], cache: true) { ping in
            let first = try await ping(["Content-Type": "application/json"])
            #expect(first.headers["x-cache"] == "MISS")
            let second = try await ping(["Content-Type": "application/json"])
            #expect(second.headers["x-cache"] == "HIT")
            #expect(second.body.string == #"{"data":{"ping":"pong"}}"#)
            #expect(log.lines == ["→ query Ping", "← 200 from gateway", "→ query Ping", "← 200 from cache"])
        }
    }

    @Test func anExchangeAfterTheCacheSeesOnlyMisses() async throws {
        let log = LineLog()
        try await withGateway(exchanges: [.after(.cache, LoggingExchange(log: log)), .after(.cache, PingExchange())], cache: true) { ping in
            let first = try await ping(["Content-Type": "application/json"])
            #expect(first.headers["x-cache"] == "MISS")
            let second = try await ping(["Content-Type": "application/json"])
            #expect(second.headers["x-cache"] == "HIT")
            #expect(log.lines == ["→ query Ping", "← 200 from gateway"])
        }
    }

    /// Runs `body` with a gateway made of `exchanges` (its upstream unreachable)
    /// and a function that POSTs `query Ping` to it with the given headers.
    private func withGateway<Result>(
        exchanges: [ExchangePlacement], cache: Bool = false,
        _ body: (_ ping: (HTTPHeaders) async throws -> HTTPClientResponse) async throws -> Result
    ) async throws -> Result {
        var config = GatewayConfig()
        config.server.listen = ListenAddress(host: "127.0.0.1", port: 0)
        config.server.loops = .fixed(1)
        config.upstream.url = "http://127.0.0.1:9/graphql"
        config.cache.enabled = cache
        let gateway = try Gateway(config: config, exchanges: exchanges)
        try gateway.start()
        defer { gateway.shutdown(drainTimeout: .seconds(1)) }
        let clientLoops = EventLoopGroup(count: 1)
        defer { clientLoops.shutdownAndWait() }
        let client = HTTPClient(group: clientLoops)
        return try await body { headers in
            try await client.execute(HTTPClientRequest(
                url: "http://127.0.0.1:\(gateway.port)/graphql", method: .post, headers: headers,
                body: Bytes(#"{"query":"query Ping { ping }","operationName":"Ping"}"#)))
        }
    }
}

/// The check from docs/extending.md.
struct RequireClientName: Exchange {
    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        guard operation.headers["apollographql-client-name"] != nil else {
            throw GatewayError.badRequest("Name your client in apollographql-client-name.")
        }
        return try await next(operation)
    }
}

/// The inline check from docs/extending.md: decides at once.
struct RequireClientNameAtOnce: InlineExchange {
    func decide(_ operation: inout Operation) throws -> InlineDecision {
        guard operation.headers["apollographql-client-name"] != nil else {
            throw GatewayError.badRequest("Name your client in apollographql-client-name.")
        }
        return .passOn
    }
}

/// The logging exchange from docs/extending.md, writing to a list instead of stdout.
struct LoggingExchange: Exchange {
    let log: LineLog

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        log.append("→ \(operation.kind?.rawValue ?? "?") \(operation.operationName ?? "anonymous")")
        return try await next(operation).map { result in
            log.append("← \(result.status) from \(result.source)")
            return result
        }
    }
}

/// Answers `query Ping` itself; forwards everything else.
struct PingExchange: Exchange {
    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        guard operation.kind == .query, operation.operationName == "Ping" else { return try await next(operation) }
        return .single(GraphQLResponse(status: 200, headers: ["Content-Type": "application/json"],
                                       body: Bytes(#"{"data":{"ping":"pong"}}"#), source: .gateway))
    }
}

final class LineLog: Sendable {
    private let storage = Lock<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
