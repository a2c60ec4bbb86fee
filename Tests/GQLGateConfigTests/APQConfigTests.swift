import Testing
@testable import GQLGateConfig

@Suite struct APQConfigTests {
    @Test func defaults() {
        let apq = GatewayConfig().apq
        #expect(apq.enabled)
        #expect(apq.store == .memory)
        #expect(!apq.upstream)
    }

    @Test func readsEveryKey() throws {
        let apq = try load("apq: {enabled: false, store: redis, upstream: true}").apq
        #expect(!apq.enabled)
        #expect(apq.store == .redis)
        #expect(apq.upstream)
    }

    @Test func rejectsUnknownStores() {
        #expect(loadError("apq: {store: disk}") == #"apq.store: "disk" is not valid: expected one of memory, redis"#)
    }

    @Test func aRedisStoreUsesRedisWhileAPQIsOn() throws {
        #expect(!GatewayConfig().usesRedis)
        #expect(try load("apq: {store: redis}").usesRedis)
        #expect(try !load("apq: {enabled: false, store: redis}").usesRedis)
        #expect(try !load("apq: {store: memory}\ncache: {enabled: false, backend: redis}").usesRedis)
    }

    @Test func aRedisStoreNeedsARedisURL() throws {
        var config = try load("apq: {store: redis}\nredis: {url: \"http://cache:6379\"}")
        #expect(thrownError { () throws(ConfigError) in try config.validate() }
            == #"redis.url: "http://cache:6379" is not valid: expected a redis://, rediss://, redis-sentinel:// or redis-cluster:// URL (apq.store is redis)"#)
        config.redis.url = "redis-cluster://a:7000,b:7001"
        #expect(thrownError { () throws(ConfigError) in try config.validate() } == nil)
        config.apq.store = .memory
        config.redis.url = "http://ignored"
        #expect(thrownError { () throws(ConfigError) in try config.validate() } == nil)
    }
}
