import Testing
@testable import GQLGateConfig

@Suite struct CacheConfigTests {
    @Test func defaults() {
        let cache = GatewayConfig().cache
        #expect(!cache.enabled)
        #expect(cache.backend == .memory)
        #expect(cache.redisURL == nil)
        #expect(cache.maxBytes == 64 << 20)
        #expect(cache.defaultTTL == .seconds(30))
        #expect(cache.types.isEmpty)
        #expect(cache.varyHeaders == ["authorization"])
        #expect(cache.staleWhileRevalidate == .zero)
        #expect(cache.staleIfError == .zero)
        #expect(cache.invalidateOnMutation)
    }

    @Test func readsEveryKey() throws {
        let cache = try load("""
            cache:
              enabled: true
              backend: redis
              redis_url: redis://cache:6379/2
              max_bytes: 256MiB
              default_ttl: 1m
              types: {Review: 10s, Character: 1h}
              vary_headers: [Authorization, X-Tenant]
              stale_while_revalidate: 5s
              stale_if_error: 1m
              invalidate_on_mutation: false
            """).cache
        #expect(cache.enabled)
        #expect(cache.backend == .redis)
        #expect(cache.redisURL == "redis://cache:6379/2")
        #expect(cache.maxBytes == 256 << 20)
        #expect(cache.defaultTTL == .seconds(60))
        #expect(cache.types == [.init(typeName: "Review", ttl: .seconds(10)), .init(typeName: "Character", ttl: .seconds(3_600))])
        #expect(cache.varyHeaders == ["authorization", "x-tenant"])
        #expect(cache.staleWhileRevalidate == .seconds(5))
        #expect(cache.staleIfError == .seconds(60))
        #expect(!cache.invalidateOnMutation)
    }

    @Test func rejectsBadTypes() {
        #expect(loadError("cache: {types: {Review: 10}}") == #"cache.types.Review: "10" is not valid: expected a duration; use a unit: 10s, 10ms"#)
        #expect(loadError("cache: {types: {\"my-type\": 1s}}") == #"cache.types.my-type: "my-type" is not valid: expected a GraphQL type name"#)
        #expect(loadError("cache: {types: [Review]}") == "cache.types: a list is not valid: expected a mapping of GraphQL type names to durations")
    }

    @Test func rejectsUnknownBackends() {
        #expect(loadError("cache: {backend: memcached}") == #"cache.backend: "memcached" is not valid: expected one of memory, redis, tiered"#)
    }
}
