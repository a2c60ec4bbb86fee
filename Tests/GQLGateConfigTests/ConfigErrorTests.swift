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
        // What YAML refuses (C1 controls, U+FFFE) or folds (NEL, U+2028, U+2029) in a quoted scalar, and the BOM.
        #expect(ConfigError.quoted("\u{80}\u{85}\u{9F}\u{A0}\u{2028}\u{2029}\u{FEFF}\u{FFFE}\u{FFFF}é\u{1F600}")
            == #""\u0080\u0085\u009f\#u{A0}\u2028\u2029\ufeff\ufffe\uffffé\#u{1F600}""#)
    }

    @Test func placesAValueErrorAtAKey() {
        #expect(ConfigError.invalid("x", expected: "y").at("a.b") == ConfigError(keyPath: "a.b", message: #""x" is not valid: expected y"#))
    }
}
