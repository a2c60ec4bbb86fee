import GQLGateRedis
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
