import GQLGatePipeline
import Testing

@Suite struct UpstreamFailureTests {
    @Test func notReachedIsUpstreamUnavailable() {
        let error = UpstreamFailure(kind: .notReached, message: "Could not connect to server").gatewayError
        #expect(error.status == 502)
        #expect(error.code == "UPSTREAM_UNAVAILABLE")
        #expect(error.message.contains("Could not connect to server"))
    }

    @Test func timedOutIsUpstreamTimeout() {
        let error = UpstreamFailure(kind: .timedOut, message: "Operation timed out").gatewayError
        #expect(error.status == 504)
        #expect(error.code == "UPSTREAM_TIMEOUT")
        #expect(error.message.contains("upstream.timeout"))
    }

    @Test func failedAfterSendIsUpstreamUnavailable() {
        let error = UpstreamFailure(kind: .failedAfterSend, message: "Connection reset by peer").gatewayError
        #expect(error.status == 502)
        #expect(error.code == "UPSTREAM_UNAVAILABLE")
        #expect(error.message.contains("Connection reset by peer"))
    }

    @Test func isAGatewayErrorConvertible() {
        let error: any Error = UpstreamFailure(kind: .timedOut, message: "slow")
        #expect((error as? any GatewayErrorConvertible)?.gatewayError.status == 504)
    }
}
