import GQLGateHTTPClient
import Testing

@Suite struct HTTPClientErrorKindTests {
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

    @Test func onlyStatusesOfTheFiveClassesEndAnExchange() {
        #expect([200, 204, 304, 404, 599].allSatisfy(HTTPClientError.isFinalStatus))
        #expect(![0, 99, 100, 101, 103, 199, 600, 999].contains(where: HTTPClientError.isFinalStatus))
    }
}
