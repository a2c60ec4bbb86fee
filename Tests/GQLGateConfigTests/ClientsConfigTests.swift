import Testing
@testable import GQLGateConfig

@Suite struct ClientsConfigTests {
    @Test func defaults() {
        let clients = GatewayConfig().clients
        #expect(clients.apiKeysFile == nil)
        #expect(!clients.allowAnonymous)
    }

    @Test func readsEveryKey() throws {
        let clients = try load("clients: {api_keys_file: /etc/gqlgate/keys, allow_anonymous: true}").clients
        #expect(clients.apiKeysFile == "/etc/gqlgate/keys")
        #expect(clients.allowAnonymous)
    }

    @Test func rateLimitIsOffByDefault() {
        let limit = GatewayConfig().clients.rateLimit
        #expect(!limit.isEnabled)
        #expect(limit.by == .key)
    }

    @Test func readsTheRateLimit() throws {
        let limit = try load("clients: {rate_limit: {requests_per_second: 2.5, burst: 10, by: header:X-Tenant}}").clients.rateLimit
        #expect(limit.requestsPerSecond == 2.5)
        #expect(limit.effectiveBurst == 10)
        #expect(limit.by == .header("x-tenant"))
        #expect(try load("clients: {rate_limit: {by: global}}").clients.rateLimit.by == .global)
    }

    @Test func withoutBurstABucketHoldsOneSecondOfRequests() throws {
        #expect(try load("clients: {rate_limit: {requests_per_second: 7.5}}").clients.rateLimit.effectiveBurst == 8)
        #expect(try load("clients: {rate_limit: {requests_per_second: 0.1}}").clients.rateLimit.effectiveBurst == 1)
    }

    @Test func theBucketsAreEachReplicasUnlessStoredInRedis() throws {
        #expect(GatewayConfig().clients.rateLimit.store == .memory)
        #expect(!GatewayConfig().usesRedis)
        let shared = try load("clients: {rate_limit: {requests_per_second: 5, store: redis}}")
        #expect(shared.clients.rateLimit.store == .redis)
        #expect(shared.usesRedis)
        // Off, the limit uses nothing.
        #expect(try !load("clients: {rate_limit: {store: redis}}").usesRedis)
        #expect(loadError("clients: {rate_limit: {store: etcd}}")?.contains("one of memory, redis") == true)
    }

    @Test func refusesAnUnknownPartition() {
        #expect(loadError("clients: {rate_limit: {by: \"header:\"}}")?.contains("clients.rate_limit.by") == true)
        #expect(loadError("clients: {rate_limit: {by: address}}")?.contains("key, global or header:NAME") == true)
    }
}
