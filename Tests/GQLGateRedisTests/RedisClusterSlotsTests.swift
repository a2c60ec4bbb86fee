@testable import GQLGateRedis
import Testing

@Suite struct RedisClusterSlotsTests {
    /// The values Redis' `CLUSTER KEYSLOT` gives.
    @Test(arguments: [("123456789", 12739), ("foo", 12182), ("bar", 5061), ("", 0)])
    func slotsAreCRC16OfTheKey(_ key: String, _ slot: Int) {
        #expect(RedisClusterSlots.slot(of: Array(key.utf8)) == slot)
    }

    @Test func aHashTagPicksTheSlot() {
        let following = RedisClusterSlots.slot(of: Array("{user1000}.following".utf8))
        #expect(following == RedisClusterSlots.slot(of: Array("{user1000}.followers".utf8)))
        #expect(following == RedisClusterSlots.slot(of: Array("user1000".utf8)))
        // An empty tag is no tag: the whole key is hashed.
        #expect(RedisClusterSlots.slot(of: Array("foo{}{bar}".utf8)) != RedisClusterSlots.slot(of: Array("bar".utf8)))
        #expect(RedisClusterSlots.slot(of: Array("foo{{bar}}zap".utf8)) == RedisClusterSlots.slot(of: Array("{bar".utf8)))
    }

    @Test func aClusterSlotsReplyIsAMapOfMasters() throws {
        let reply = RedisReply.array([
            .array([.integer(0), .integer(5460), .array([.bulk(Array("10.0.0.1".utf8)), .integer(7000), .bulk(Array("id1".utf8))]),
                    .array([.bulk(Array("10.0.0.4".utf8)), .integer(7003)])]),
            .array([.integer(5461), .integer(16383), .array([.bulk([]), .integer(7001)])]),
        ])
        let map = try #require(RedisClusterSlots.parse(reply, askedOf: RedisServerAddress(host: "10.0.0.9", port: 7009)))
        #expect(map.node(for: 0) == RedisServerAddress(host: "10.0.0.1", port: 7000))
        #expect(map.node(for: 5460) == RedisServerAddress(host: "10.0.0.1", port: 7000))
        #expect(map.node(for: 5461) == RedisServerAddress(host: "10.0.0.9", port: 7001))
        #expect(map.nodes.count == 2)
        var moved = map
        moved.move(3, to: RedisServerAddress(host: "10.0.0.2", port: 7002))
        #expect(moved.node(for: 3) == RedisServerAddress(host: "10.0.0.2", port: 7002))
        #expect(RedisClusterSlots.parse(.array([.array([.integer(0), .integer(99999), .array([.bulk([]), .integer(1)])])]),
                                        askedOf: .init(host: "h", port: 1)) == nil)
        #expect(RedisClusterSlots.parse(.error("ERR This instance has cluster support disabled"), askedOf: .init(host: "h", port: 1)) == nil)
    }

    @Test func commandsAreRoutedByTheirFirstKey() {
        func key(_ words: String...) -> String? {
            RedisCommandKey.of(words.map { Array($0.utf8) }).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(key("GET", "a") == "a")
        #expect(key("mget", "a", "b") == "a")
        #expect(key("EVAL", "return 1", "2", "k1", "k2", "arg") == "k1")
        #expect(key("EVAL", "return 1", "0", "arg") == nil)
        #expect(key("PING") == nil)
        #expect(key("CLUSTER", "SLOTS") == nil)
    }
}

@Suite struct RedisCommandEncodingTests {
    @Test func commandsAreArraysOfBulkStrings() {
        var output: [UInt8] = []
        RedisCommandEncoding.append([Array("SET".utf8), Array("k".utf8), [0, 13, 10], Array(repeating: 120, count: 12)], to: &output)
        #expect(output == Array("*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n\0\r\n\r\n$12\r\nxxxxxxxxxxxx\r\n".utf8))
        output = []
        RedisCommandEncoding.append([[]], to: &output)
        #expect(output == Array("*1\r\n$0\r\n\r\n".utf8))
    }
}
