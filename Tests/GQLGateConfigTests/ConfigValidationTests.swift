import Testing
@testable import GQLGateConfig

@Suite struct ConfigValidationTests {
    private func validationError(_ yaml: String) throws -> String? {
        let config = try load(yaml)
        return thrownError { () throws(ConfigError) in try config.validate() }
    }

    @Test func defaultsAreValid() throws {
        try GatewayConfig().validate()
    }

    @Test func listeningBeyondLoopbackNeedsClientAuthOrAllowAnonymous() throws {
        #expect(try validationError("server: {listen: \"0.0.0.0:8080\"}")
            == "server.listen: 0.0.0.0:8080 is beyond loopback and clients are not authenticated: "
            + "set clients.api_keys_file or server.tls.client_ca_file, or set clients.allow_anonymous: true to let anyone in")
        #expect(try validationError("server: {listen: \"[::]:8080\"}")?.contains("clients.allow_anonymous") == true)
        #expect(try validationError("server: {listen: \"0.0.0.0:8080\"}\nclients: {allow_anonymous: true}") == nil)
        #expect(try validationError("server: {listen: \"0.0.0.0:8080\"}\nclients: {api_keys_file: /etc/keys}") == nil)
        // Client certificates authenticate clients too.
        #expect(try validationError("server: {listen: \"0.0.0.0:8443\", tls: {cert_file: c, key_file: k, client_ca_file: ca}}") == nil)
        #expect(try validationError("server: {listen: \"0.0.0.0:8443\", tls: {cert_file: c, key_file: k}}")?.hasPrefix("server.listen") == true)
    }

    @Test(arguments: ["127.0.0.1:8080", "127.0.0.2:8080", "[::1]:8080", "localhost:8080"])
    func loopbackNeedsNoClientAuth(listen: String) throws {
        #expect(try validationError("server: {listen: \"\(listen)\"}") == nil)
    }

    @Test func baseDelayMustNotExceedMaxDelay() throws {
        #expect(try validationError("retry: {base_delay: 3s, max_delay: 2s}")
            == "retry.base_delay: 3s is longer than retry.max_delay (2s): expected at most retry.max_delay")
        #expect(try validationError("retry: {base_delay: 2s, max_delay: 2s}") == nil)
    }

    @Test func oauth2NeedsItsThreeKeys() throws {
        #expect(try validationError("auth: {oauth2: {client_id: a, client_secret: b}}")
            == "auth.oauth2.token_url: required when auth.oauth2 is set")
        #expect(try validationError("auth: {oauth2: {token_url: \"https://id/token\", client_secret: b}}")
            == "auth.oauth2.client_id: required when auth.oauth2 is set")
        #expect(try validationError("auth: {oauth2: {token_url: \"https://id/token\", client_id: a}}")
            == "auth.oauth2.client_secret: required when auth.oauth2 is set")
        #expect(try validationError("auth: {oauth2: {token_url: \"https://id/token\", client_id: a, client_secret: b}}") == nil)
    }

    @Test func oauth2AndABearerTokenFileExcludeEachOther() throws {
        #expect(try validationError("auth: {bearer_token_file: /t, oauth2: {token_url: \"https://id/token\", client_id: a, client_secret: b}}")
            == "auth.bearer_token_file: cannot be combined with auth.oauth2 (both set the Authorization header); keep one")
    }

    @Test func redisBackendNeedsARedisURL() throws {
        #expect(try validationError("cache: {backend: redis, redis_url: \"http://cache:6379\"}")
            == #"cache.redis_url: "http://cache:6379" is not valid: expected a redis://, rediss://, redis-sentinel:// or redis-cluster:// URL (cache.backend is redis)"#)
        #expect(try validationError("cache: {backend: redis}") == nil)
        #expect(try validationError("cache: {backend: memory, redis_url: \"http://ignored\"}") == nil)
    }

    @Test func aRateLimitSharedThroughRedisNeedsARedisURL() throws {
        #expect(try validationError("clients: {rate_limit: {requests_per_second: 5, store: redis}}\nredis: {url: \"http://cache:6379\"}")
            == #"redis.url: "http://cache:6379" is not valid: expected a redis://, rediss://, redis-sentinel:// or redis-cluster:// URL (clients.rate_limit.store is redis)"#)
        #expect(try validationError("clients: {rate_limit: {requests_per_second: 5, store: redis}}") == nil)
        #expect(try validationError("clients: {rate_limit: {store: redis}}\nredis: {url: \"http://ignored\"}") == nil)
    }
}
