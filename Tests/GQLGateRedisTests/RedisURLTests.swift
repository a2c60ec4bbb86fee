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
