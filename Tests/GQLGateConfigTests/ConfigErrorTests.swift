import Testing
@testable import GQLGateConfig

@Suite struct ConfigErrorTests {
    @Test func descriptionPrefixesTheKeyPath() {
        #expect(ConfigError(keyPath: "retry.max_attempts", message: "bad").description == "retry.max_attempts: bad")
        #expect(ConfigError(keyPath: "", message: "cannot read config file x").description == "cannot read config file x")
    }

    @Test func quotesValuesWithEscapes() {
        #expect(ConfigError.quoted("plain") == #""plain""#)
        #expect(ConfigError.quoted("a\"b\\c\nd\te\u{1}") == #""a\"b\\c\nd\te\u0001""#)
        #expect(ConfigError.quoted("é") == "\"é\"")
    }

    @Test func placesAValueErrorAtAKey() {
        #expect(ConfigError.invalid("x", expected: "y").at("a.b") == ConfigError(keyPath: "a.b", message: #""x" is not valid: expected y"#))
    }
}
