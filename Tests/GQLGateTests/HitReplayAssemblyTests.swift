@testable import GQLGate
import GQLGatePipeline
import Testing

/// An inline stage that passes every operation on, to place among the built-in ones.
private struct PassingOn: InlineExchange {
    func decide(_ operation: inout Operation) -> InlineDecision { .passOn }
}

/// `HitReplayAssembly`: which configurations answer repeated cache hits from their bytes.
@Suite(.serialized) struct HitReplayAssemblyTests {
    private static let rows: [(name: String, change: @Sendable (inout GatewayConfig) -> Void, replays: Bool)] = [
        ("no cache", { _ in }, false),
        ("the memory cache", { $0.cache.enabled = true }, true),
        ("a schema validated and demand control measured", { config in
            config.cache.enabled = true
            config.schema.source = .file
            config.schema.file = PipelineAssemblyTests.schemaFile
            config.demandControl.mode = .measure
        }, true),
        ("the tiered cache", { config in
            config.cache.enabled = true
            config.cache.backend = .tiered
            config.redis.url = "redis://127.0.0.1:9"
        }, true),
        ("the Redis cache", { config in
            config.cache.enabled = true
            config.cache.backend = .redis
            config.redis.url = "redis://127.0.0.1:9"
        }, false),
        ("tracing", { config in
            config.cache.enabled = true
            config.tracing.enabled = true
            config.tracing.endpoint = "http://127.0.0.1:9/v1/traces"
        }, false),
        ("a rate limit", { config in
            config.cache.enabled = true
            config.clients.rateLimit.requestsPerSecond = 10
        }, false),
        ("field usage", { config in
            config.cache.enabled = true
            config.schema.source = .file
            config.schema.file = PipelineAssemblyTests.schemaFile
            config.metrics.fieldUsage = true
        }, false),
        ("persisted documents", { config in
            config.cache.enabled = true
            config.persistedDocuments.manifests = [PipelineAssemblyTests.manifest]
        }, false),
    ]

    @Test(arguments: rows.indices) func aConfigurationReplaysHitsOnlyWhenEveryStageBeforeTheCacheAllowsIt(row: Int) throws {
        var config = PipelineAssemblyTests.base()
        Self.rows[row].change(&config)
        let gateway = try Gateway(config: config)
        try gateway.start()
        defer { _ = gateway.shutdown(drainTimeout: .seconds(1)) }
        #expect((gateway.generations.current.hitReplay != nil) == Self.rows[row].replays, "\(Self.rows[row].name)")
    }

    @Test(arguments: [true, false]) func anExchangePlacedBeforeTheCacheTurnsTheReplayOff(before: Bool) throws {
        var config = PipelineAssemblyTests.base()
        config.cache.enabled = true
        let placement: ExchangePlacement = before ? .before(.cache, PassingOn()) : .after(.cache, PassingOn())
        let gateway = try Gateway(config: config, exchanges: [placement])
        try gateway.start()
        defer { _ = gateway.shutdown(drainTimeout: .seconds(1)) }
        #expect((gateway.generations.current.hitReplay != nil) == !before)
    }
}
