import Foundation
@testable import GQLGate
import Testing

/// `makePipeline`: which built-in slots a configuration fills, in which order.
@Suite(.serialized) struct PipelineAssemblyTests {
    /// The configuration every row starts from: the defaults, an upstream, one loop.
    static func base() -> GatewayConfig {
        var config = GatewayConfig()
        config.server.listen = ListenAddress(host: "127.0.0.1", port: 0)
        config.server.loops = .fixed(1)
        config.upstream.url = "http://127.0.0.1:9/graphql"
        return config
    }

    private static let rows: [(name: String, change: @Sendable (inout GatewayConfig) -> Void, slots: [PipelineSlot])] = [
        ("defaults", { _ in }, [.apq, .document, .methodRules, .limits, .dedupe, .retry]),
        ("everything off", { config in
            config.apq.enabled = false
            config.dedupe.enabled = false
            config.retry.maxAttempts = 1
        }, [.document, .methodRules, .limits]),
        ("cache", { $0.cache.enabled = true }, [.apq, .document, .methodRules, .limits, .cache, .dedupe, .retry]),
        ("APQ upstream", { $0.apq.upstream = true }, [.apq, .document, .methodRules, .limits, .dedupe, .upstreamAPQ, .retry]),
        ("credentials", { $0.auth.headers = [HeaderField(name: "Authorization", value: "Bearer t")] },
         [.apq, .document, .methodRules, .limits, .dedupe, .credentials, .retry]),
        ("traffic protection", { config in
            config.clients.rateLimit.requestsPerSecond = 10
            config.upstream.circuitBreaker.enabled = true
            config.upstream.maxConcurrency = 8
        }, [.rateLimit, .apq, .document, .methodRules, .limits, .dedupe, .retry, .circuitBreaker, .upstreamConcurrency]),
        ("a schema", { config in
            config.schema.source = .file
            config.schema.file = schemaFile
        }, [.apq, .document, .methodRules, .limits, .validation, .dedupe, .retry]),
        ("demand control, cost tokens and field usage", { config in
            config.schema.source = .file
            config.schema.file = schemaFile
            config.demandControl.mode = .measure
            config.clients.rateLimit.requestsPerSecond = 10
            config.clients.rateLimit.byCost = true
            config.metrics.fieldUsage = true
        }, [.rateLimit, .apq, .document, .methodRules, .limits, .validation, .demandControl, .costRateLimit, .fieldUsage, .dedupe, .retry]),
        ("persisted documents and the safelist", { config in
            config.persistedDocuments.manifests = [manifest]
            config.persistedDocuments.safelist = true
        }, [.persistedDocuments, .apq, .document, .safelist, .methodRules, .limits, .dedupe, .retry]),
    ]

    /// A schema file, for the schema row.
    static let schemaFile: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-assembly-\(getpid()).graphql").path
        precondition(FileManager.default.createFile(atPath: path, contents: Data("type Query { ping: String }".utf8)), "cannot write \(path)")
        return path
    }()

    /// A manifest of one document, for the persisted documents row.
    static let manifest: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-assembly-\(getpid()).json").path
        precondition(FileManager.default.createFile(atPath: path, contents: Data(#"{"ping": "query Ping { ping }"}"#.utf8)), "cannot write \(path)")
        return path
    }()

    @Test(arguments: rows.indices) func aConfigurationFillsItsSlotsInOrder(row: Int) throws {
        var config = Self.base()
        Self.rows[row].change(&config)
        let gateway = try Gateway(config: config)
        try gateway.start()
        defer { _ = gateway.shutdown(drainTimeout: .seconds(1)) }
        #expect(gateway.generations.current.slots == Self.rows[row].slots, "\(Self.rows[row].name)")
    }

    @Test func aRateLimitSharedThroughRedisIsTheFleetsStageAndAReloadKeepsItsBuckets() throws {
        var config = Self.base()
        config.clients.rateLimit.requestsPerSecond = 10
        config.clients.rateLimit.store = .redis
        config.redis.url = "redis://127.0.0.1:9"  // nothing there: the limit is per replica, requests go on
        let gateway = try Gateway(config: config)
        try gateway.start()
        defer { _ = gateway.shutdown(drainTimeout: .seconds(1)) }
        let first = gateway.generations.current.traffic
        let limiter = try #require(first.fleetLimiter)
        #expect(gateway.generations.current.slots.first == .rateLimit)

        var unrelated = config
        unrelated.limits.maxDepth = 20
        try gateway.reload(unrelated)
        #expect(gateway.generations.current.traffic.fleetLimiter === limiter)
        var otherRedis = unrelated
        otherRedis.redis.url = "redis://127.0.0.1:10"
        try gateway.reload(otherRedis)
        #expect(gateway.generations.current.traffic.fleetLimiter !== limiter)
        var memory = otherRedis
        memory.clients.rateLimit.store = .memory
        try gateway.reload(memory)
        #expect(gateway.generations.current.traffic.rateLimit != nil)
        #expect(gateway.generations.current.traffic.fleetLimiter == nil)
    }

    @Test func everySlotIsFilledBySomeRow() {
        #expect(Set(Self.rows.flatMap(\.slots)) == Set(PipelineSlot.allCases))
    }
}
