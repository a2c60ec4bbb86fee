import GQLGateExchanges
import GQLGateHTTPClient
import GQLGatePipeline
import Testing

@Suite struct HTTPClientErrorMappingTests {
    @Test(arguments: [
        // CURLE_COULDNT_RESOLVE_PROXY, _HOST, COULDNT_CONNECT: nothing left, whatever the byte count says.
        (5, 0, HTTPClientError.Kind.notReached), (6, 0, .notReached), (6, 100, .notReached), (7, 0, .notReached), (7, 100, .notReached),
        // CURLE_OPERATION_TIMEDOUT: a connect timeout sent nothing; later it is a timeout.
        (28, 0, .notReached), (28, 1, .timedOut), (28, 250, .timedOut),
        // TLS handshake, send and receive failures: not reached until a byte went out.
        (35, 0, .notReached), (35, 300, .failedAfterSend), (60, 0, .notReached), (60, 300, .failedAfterSend),
        (52, 0, .notReached), (52, 120, .failedAfterSend), (55, 0, .notReached), (55, 120, .failedAfterSend),
        (56, 0, .notReached), (56, 120, .failedAfterSend),
        // Anything else may have reached the upstream.
        (18, 0, .failedAfterSend), (1, 0, .failedAfterSend), (92, 50, .failedAfterSend),
    ] as [(Int32, Int, HTTPClientError.Kind)])
    func curlCodesSortByWhetherTheRequestLeft(code: Int32, bytes: Int, kind: HTTPClientError.Kind) {
        #expect(HTTPClientError.kind(forCurlCode: code, requestBytesSent: bytes) == kind)
    }

    @Test func notReachedIsUpstreamUnavailable() {
        let error = HTTPClientError(kind: .notReached, code: 7, message: "Could not connect to server").gatewayError
        #expect(error.status == 502)
        #expect(error.code == "UPSTREAM_UNAVAILABLE")
        #expect(error.message.contains("Could not connect to server"))
    }

    @Test func timedOutIsUpstreamTimeout() {
        let error = HTTPClientError(kind: .timedOut, code: 28, message: "Operation timed out").gatewayError
        #expect(error.status == 504)
        #expect(error.code == "UPSTREAM_TIMEOUT")
        #expect(error.message.contains("upstream.timeout"))
    }

    @Test(arguments: [HTTPClientError.Kind.failedAfterSend, .cancelled])
    func otherFailuresAreUpstreamUnavailable(kind: HTTPClientError.Kind) {
        let error = HTTPClientError(kind: kind, code: 56, message: "Connection reset by peer").gatewayError
        #expect(error.status == 502)
        #expect(error.code == "UPSTREAM_UNAVAILABLE")
        #expect(error.message.contains("Connection reset by peer"))
    }

    @Test func curlCodesMapToTheContractsStatus() {
        let cases: [(Int32, Int)] = [(6, 0), (7, 0), (28, 0), (28, 10), (52, 10), (56, 10), (35, 0)]
        let answers = cases.map { code, bytes in
            let error = HTTPClientError(kind: HTTPClientError.kind(forCurlCode: code, requestBytesSent: bytes), code: code, message: "m")
            return "\(code)/\(bytes): \(error.gatewayError.status) \(error.gatewayError.code)"
        }
        #expect(answers == [
            "6/0: 502 UPSTREAM_UNAVAILABLE", "7/0: 502 UPSTREAM_UNAVAILABLE", "28/0: 502 UPSTREAM_UNAVAILABLE",
            "28/10: 504 UPSTREAM_TIMEOUT", "52/10: 502 UPSTREAM_UNAVAILABLE", "56/10: 502 UPSTREAM_UNAVAILABLE",
            "35/0: 502 UPSTREAM_UNAVAILABLE",
        ])
    }

    @Test func isAGatewayErrorConvertible() {
        let error: any Error = HTTPClientError(kind: .timedOut, code: 28, message: "slow")
        #expect((error as? any GatewayErrorConvertible)?.gatewayError.status == 504)
    }
}
