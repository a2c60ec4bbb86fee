import GQLGateCore
import GQLGatePipeline
import Testing

@Suite struct OperationTests {
    /// A client body with spacing no encoder would produce, so its bytes are recognisable.
    static let clientBody = #"{ "query" : "{ a }",  "variables" : { "id" : 1 } }"#

    @Test func aRecordKeepsEveryFactUntilOneItDoesNotShowIsRecorded() {
        let record = OperationRecord()
        record.record(.operationSelected(kind: .query, name: "Q", documentSHA256: "ab"))
        record.record(.cacheServed(.hit))
        #expect(record.snapshot.keepsEveryFact)
        record.record(.persistedDocument(.listedText))
        #expect(!record.snapshot.keepsEveryFact)
        #expect(record.snapshot.cache == .hit)
        let kept = OperationRecord(kept: record.snapshot)
        #expect(kept.snapshot == record.snapshot)
    }

    @Test func upstreamBodyIsTheClientsBytesWhileUntouched() {
        var op = operation("{ a }", variables: .object([("id", .integer(1))]), body: Self.clientBody)
        op.headers.add(name: "X-Extra", value: "1")
        op.requestID = "other"
        op.clientTransport = .httpPost
        #expect(op.upstreamBody().string == Self.clientBody)
        #expect(op.originalBody?.string == Self.clientBody)
    }

    @Test func changingTheRequestReEncodesIt() {
        var op = operation("{ a }", variables: .object([("id", .integer(1))]), body: Self.clientBody)
        op.request.variables = .object([("id", .integer(2))])
        #expect(op.originalBody == nil)
        #expect(op.upstreamBody().string == #"{"query":"{ a }","variables":{"id":2}}"#)
    }

    @Test func replacingTheRequestReEncodesIt() {
        var op = operation("{ a }", body: Self.clientBody)
        op.request = GraphQLRequest(query: "{ b }", operationName: nil, extensions: .object([("k", .bool(true))]))
        #expect(op.upstreamBody().string == #"{"query":"{ b }","extensions":{"k":true}}"#)
    }

    @Test func withoutAClientBodyTheRequestIsEncoded() {
        let op = operation("query Q { a }", operationName: "Q", transport: .httpGet)
        #expect(op.upstreamBody().string == #"{"query":"query Q { a }","operationName":"Q"}"#)
    }

    @Test func kindIsUnknownUntilAnOperationIsSelected() {
        var op = operation("mutation { a }")
        #expect(op.kind == nil)
        #expect(op.document == nil)
        op.selected = try? DocumentCache().analyse("mutation { a }").selectOperation(named: nil)
        #expect(op.kind == .mutation)
    }
}
