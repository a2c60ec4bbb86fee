import Testing
@testable import GQLGateConfig

@Suite struct DedupeConfigTests {
    @Test func defaults() {
        #expect(GatewayConfig().dedupe.enabled)
    }

    @Test func readsEveryKey() throws {
        #expect(try !load("dedupe: {enabled: false}").dedupe.enabled)
    }

    @Test func rejectsBadValues() {
        #expect(loadError("dedupe: {enabled: 0}") == #"dedupe.enabled: "0" is not valid: expected true or false"#)
    }
}
