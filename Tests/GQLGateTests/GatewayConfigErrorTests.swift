import GQLGate
import Testing

@Suite struct GatewayConfigErrorTests {
    /// A config whose Redis URL passes `validate()` but not the Redis client's parser.
    private static func config(redisURL: String) -> GatewayConfig {
        var config = GatewayConfig()
        config.server.listen = ListenAddress(host: "127.0.0.1", port: 0)
        config.server.loops = .fixed(1)
        config.upstream.url = "http://127.0.0.1:9/graphql"
        config.cache.enabled = true
        config.cache.backend = .redis
        config.cache.redisURL = redisURL
        return config
    }

    private static let badURL = "redis://gate:s3cret-pw@cache:99999/0"

    @Test func anUnusableRedisURLIsRefusedWithoutItsPassword() throws {
        do {
            _ = try Gateway(config: Self.config(redisURL: Self.badURL))
            Issue.record("the gateway was built")
        } catch {
            #expect(error.keyPath == "cache.redis_url")
            #expect(error.description.contains("redis://gate:<redacted>@cache:99999/0"), "\(error)")
            #expect(!error.description.contains("s3cret"), "\(error)")
        }
    }

    @Test func aReloadToAnUnusableRedisURLKeepsTheRunningConfigAndNoSecretIsTold() throws {
        var running = Self.config(redisURL: "redis://127.0.0.1:6379")
        running.cache.enabled = false
        let gateway = try Gateway(config: running)
        try gateway.start()
        defer { gateway.shutdown(drainTimeout: .seconds(1)) }
        do {
            try gateway.reload(Self.config(redisURL: Self.badURL))
            Issue.record("the reload was applied")
        } catch {
            #expect(error.keyPath == "cache.redis_url")
            #expect(!error.description.contains("s3cret"), "\(error)")
        }
        #expect(gateway.config == running)
    }
}
