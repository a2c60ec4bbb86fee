@testable import GQLGate
import Logging
import Testing

@Suite struct RequestLogTests {
    @Test func knownFactsBecomeFields() {
        var facts = OperationRecord.Snapshot()
        facts.kind = .query
        facts.operationName = "Books"
        facts.attempts = 2
        facts.upstreamStatus = 200
        facts.cache = .miss
        let fields = RequestLog.accessLine(status: 200, requestID: "r-1", elapsedNanoseconds: 1_234_567, facts: facts).metadata
        #expect(fields.mapValues(\.description) == [
            "request_id": "r-1", "operation": "query", "operation_name": "Books", "status": "200", "duration_ms": "1.234",
            "cache": "MISS", "attempts": "2", "upstream_status": "200",
        ])
    }

    @Test func unknownFactsAreLeftOut() {
        let fields = RequestLog.accessLine(status: 400, requestID: "r-2", elapsedNanoseconds: 500_000, facts: OperationRecord.Snapshot()).metadata
        #expect(Set(fields.keys) == ["request_id", "status", "duration_ms"])
    }
}
