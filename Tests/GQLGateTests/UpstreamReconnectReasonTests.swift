import GQLGatePipeline
import GQLGateSubscriptions
@testable import GQLGate
import Testing

@Suite struct UpstreamReconnectReasonTests {
    @Test func aCloseGqlgateSendsSaysWhyTheConnectionWasLost() {
        #expect(UpstreamReconnect.Reason(closing: .ackTimeout) == .ackTimeout)
        #expect(UpstreamReconnect.Reason(closing: .keepAliveTimeout) == .keepAliveTimeout)
        #expect(UpstreamReconnect.Reason(closing: .badResponse("connection_error: {}")) == .badMessage)
        #expect(UpstreamReconnect.Reason(closing: .normal) == .closed)
    }
}
