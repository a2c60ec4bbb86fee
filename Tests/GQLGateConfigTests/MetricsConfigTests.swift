import Testing
@testable import GQLGateConfig

@Suite struct MetricsConfigTests {
    @Test func defaults() {
        #expect(GatewayConfig().metrics.enabled)
    }

    @Test func readsEveryKey() throws {
        #expect(try !load("metrics: {enabled: false}").metrics.enabled)
    }

    @Test func rejectsBadValues() {
        #expect(loadError("metrics: {enabled: maybe}") == #"metrics.enabled: "maybe" is not valid: expected true or false"#)
    }
}
