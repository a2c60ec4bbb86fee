@testable import GQLGateRedis
import Testing

@Suite struct RedisCacheKeysTests {
    @Test func keysNameTheirKindUnderThePrefix() {
        let key = requestKey("{ reviews { stars } }")
        let keys = RedisCacheKeys(prefix: "shop:")
        #expect(keys.answer(key) == "shop:answer:\(key.description)")
        #expect(keys.answer(hex: key.description) == keys.answer(key))
        #expect(keys.refresh(key) == "shop:refresh:\(key.description)")
        #expect(keys.tag("Review:7") == "shop:tag:Review:7")
        #expect(keys.tag("Review") == "shop:tag:Review")
    }

    @Test func theDefaultPrefixIsGqlgate() {
        #expect(RedisCacheKeys().answer(requestKey("{ a }")).hasPrefix("gqlgate:answer:"))
    }

    @Test func theKeyIsTheSHA256InHex() {
        let hex = requestKey("{ a }").description
        #expect(hex.count == 64)
        #expect(hex.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(requestKey("{ a }", authorization: "Bearer x").description != hex)
    }
}

@Suite struct RedisCacheKeysPartitionTests {
    @Test func inAClusterAnAnswerAndItsTagSetsShareAHashTag() {
        let keys = RedisCacheKeys(prefix: "shop:", partitions: RedisCacheKeys.clusterPartitions)
        let key = requestKey("{ reviews { stars } }")
        let partition = keys.partition(ofHex: key.description)
        #expect((0..<RedisCacheKeys.clusterPartitions).contains(partition))
        #expect(keys.answer(key) == "shop:{\(partition)}answer:\(key.description)")
        #expect(keys.refresh(key) == "shop:{\(partition)}refresh:\(key.description)")
        #expect(keys.tag("Review:7", partition: partition) == "shop:{\(partition)}tag:Review:7")
        let slots = Set([keys.answer(key), keys.refresh(key), keys.tag("Review:7", partition: partition)].map {
            RedisClusterSlots.slot(of: Array($0.utf8))
        })
        #expect(slots.count == 1)
    }

    @Test func answersSpreadOverEveryGroup() {
        let keys = RedisCacheKeys(partitions: RedisCacheKeys.clusterPartitions)
        let groups = Set((0..<2000).map { keys.partition(ofHex: requestKey("{ a(n: \($0)) }").description) })
        #expect(groups.count == RedisCacheKeys.clusterPartitions)
    }
}
