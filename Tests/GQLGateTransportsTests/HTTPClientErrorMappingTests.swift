import GQLGateHTTPClient
import GQLGatePipeline
@testable import GQLGateTransports
import Testing

/// The HTTP transport reports libcurl failures as `UpstreamFailure`s.
@Suite struct HTTPClientErrorMappingTests {
    @Test func curlCodesMapToTheContractsStatus() {
        let cases: [(Int32, Int)] = [(6, 0), (7, 0), (28, 0), (28, 10), (52, 10), (56, 10), (35, 0)]
        let answers = cases.map { code, bytes in
            let error = HTTPClientError(kind: HTTPClientError.kind(forCurlCode: code, requestBytesSent: bytes), code: code, message: "m")
            let failure = UpstreamFailure(error)
            return "\(code)/\(bytes): \(failure?.kind, default: "none") \(failure?.gatewayError.status ?? 0) \(failure?.gatewayError.code ?? "")"
        }
        #expect(answers == [
            "6/0: notReached 502 UPSTREAM_UNAVAILABLE", "7/0: notReached 502 UPSTREAM_UNAVAILABLE",
            "28/0: notReached 502 UPSTREAM_UNAVAILABLE", "28/10: timedOut 504 UPSTREAM_TIMEOUT",
            "52/10: failedAfterSend 502 UPSTREAM_UNAVAILABLE", "56/10: failedAfterSend 502 UPSTREAM_UNAVAILABLE",
            "35/0: notReached 502 UPSTREAM_UNAVAILABLE",
        ])
    }

    @Test func keepsCurlsMessageForTheClientAndItsCodeForLogs() throws {
        let failure = try #require(UpstreamFailure(HTTPClientError(kind: .failedAfterSend, code: 56, message: "Connection reset by peer")))
        #expect(failure.gatewayError.message == "The upstream connection failed: Connection reset by peer.")
        #expect(failure.description == "Connection reset by peer (curl error 56)")
    }

    @Test func aCancelledTransferIsNoUpstreamFailure() {
        #expect(UpstreamFailure(HTTPClientError.cancelled) == nil)
    }
}
