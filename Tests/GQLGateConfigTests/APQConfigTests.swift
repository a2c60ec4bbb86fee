import Testing
@testable import GQLGateConfig

@Suite struct APQConfigTests {
    @Test func defaults() {
        let apq = GatewayConfig().apq
        #expect(apq.enabled)
        #expect(!apq.upstream)
    }

    @Test func readsEveryKey() throws {
        let apq = try load("apq: {enabled: false, upstream: true}").apq
        #expect(!apq.enabled)
        #expect(apq.upstream)
    }
}
