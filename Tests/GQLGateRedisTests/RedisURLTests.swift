import GQLGateRedis
import Testing

@Suite struct RedisURLTests {
    @Test func hostAloneTakesThePortAndDatabaseDefaults() throws {
        #expect(try RedisURL(parsing: "redis://cache.internal") == RedisURL(host: "cache.internal", port: 6379, database: 0))
    }

    @Test func everyPartIsRead() throws {
        #expect(try RedisURL(parsing: "redis://gate:s3cret@10.0.0.5:6380/2")
            == RedisURL(host: "10.0.0.5", port: 6380, user: "gate", password: "s3cret", database: 2))
    }

    @Test func aPasswordWithoutUserAndPercentEncoding() throws {
        let url = try RedisURL(parsing: "redis://:p%40ss%3Aword@localhost:6379/")
        #expect(url.user == nil)
        #expect(url.password == "p@ss:word")
        #expect(url.database == 0)
    }

    @Test func bracketedIPv6Hosts() throws {
        #expect(try RedisURL(parsing: "redis://[::1]:7000/1") == RedisURL(host: "::1", port: 7000, database: 1))
    }

    @Test(arguments: ["http://cache:6379", "redis://", "redis://cache:0", "redis://cache:port", "redis://cache/db", "redis://:%zz@cache",
                      "redis://[::1"])
    func badURLsAreRefused(_ text: String) {
        #expect(throws: RedisError.self) { try RedisURL(parsing: text) }
    }

    @Test(arguments: ["http://gate:s3cret@cache", "redis://gate:s3cret@cache:0", "redis://gate:s3cret@cache/db", "redis://:s3cret%zz@cache",
                      "redis://gate:s3cret@[::1"])
    func refusalsDoNotQuoteThePassword(_ text: String) {
        #expect { try RedisURL(parsing: text) } throws: { error in
            guard case RedisError.invalidURL(let reason) = error else { return false }
            return !reason.contains("s3cret") && !"\(error)".contains("s3cret")
        }
    }
}

@Suite struct RedisURLTopologyTests {
    @Test func rediss() throws {
        let url = try RedisURL(parsing: "rediss://:pw@cache.internal:6380/1")
        #expect(url == RedisURL(host: "cache.internal", port: 6380, password: "pw", database: 1, tls: true))
    }

    @Test func sentinelsNameTheirMasterAndDefaultToPort26379() throws {
        let url = try RedisURL(parsing: "redis-sentinel://gate:pw@s1,s2:26380,[::1]/mymaster/2")
        #expect(url.topology == .sentinel(master: "mymaster"))
        #expect(url.servers == [.init(host: "s1", port: 26379), .init(host: "s2", port: 26380), .init(host: "::1", port: 26379)])
        #expect(url.user == "gate")
        #expect(url.password == "pw")
        #expect(url.database == 2)
        #expect(url.tls == false)
        #expect(try RedisURL(parsing: "rediss-sentinel://s1/m").tls)
    }

    @Test func clusterSeeds() throws {
        let url = try RedisURL(parsing: "redis-cluster://10.0.0.1:7000,10.0.0.2")
        #expect(url.topology == .cluster)
        #expect(url.servers == [.init(host: "10.0.0.1", port: 7000), .init(host: "10.0.0.2", port: 6379)])
        #expect(try RedisURL(parsing: "rediss-cluster://seed/").tls)
    }

    @Test(arguments: ["redis-sentinel://s1:26379", "redis-sentinel://s1/", "redis-cluster://seed/3", "redis://a,b", "redis://a/1/2",
                      "redis-cluster://a,,b", "memcached://cache"])
    func badTopologiesAreRefused(_ text: String) {
        #expect(throws: RedisError.self) { try RedisURL(parsing: text) }
    }
}
