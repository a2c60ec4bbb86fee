@testable import GQLGate
import GQLGateHTTPServer
import Logging
import Testing

@Suite struct RequestLogTests {
    @Test func knownFactsBecomeFields() {
        var trace = RequestTrace.Snapshot()
        trace.kind = .query
        trace.operationName = "Books"
        trace.attempts = 2
        trace.upstreamStatus = 200
        let response = ServerResponse(status: 200, headers: ["X-Request-Id": "r-1", "X-Cache": "MISS"])
        let fields = RequestLog.accessLine(response, elapsedNanoseconds: 1_234_567, trace: trace).metadata
        #expect(fields.mapValues(\.description) == [
            "request_id": "r-1", "operation": "query", "operation_name": "Books", "status": "200", "duration_ms": "1.234",
            "cache": "MISS", "attempts": "2", "upstream_status": "200",
        ])
    }

    @Test func unknownFactsAreLeftOut() {
        let response = ServerResponse(status: 400, headers: ["X-Request-Id": "r-2"])
        let fields = RequestLog.accessLine(response, elapsedNanoseconds: 500_000, trace: RequestTrace.Snapshot()).metadata
        #expect(Set(fields.keys) == ["request_id", "status", "duration_ms"])
    }
}
