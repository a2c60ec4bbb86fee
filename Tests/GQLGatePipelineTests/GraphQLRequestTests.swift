import Foundation
import GQLGatePipeline
import Testing

@Suite struct GraphQLRequestTests {
    @Test func jsonBodyHasEveryFieldInOrder() {
        let request = GraphQLRequest(query: "query Q { a }", operationName: "Q", variables: .object([("id", .integer(1))]),
                                     extensions: .object([("persistedQuery", .object([("version", .integer(1))]))]))
        #expect(request.jsonBody()
            == #"{"query":"query Q { a }","operationName":"Q","variables":{"id":1},"extensions":{"persistedQuery":{"version":1}}}"#)
    }

    @Test func jsonBodyLeavesAbsentFieldsOut() {
        #expect(GraphQLRequest(query: "{ a }").jsonBody() == #"{"query":"{ a }"}"#)
        #expect(GraphQLRequest(query: nil, extensions: .object([])).jsonBody() == #"{"extensions":{}}"#)
        #expect(GraphQLRequest(query: nil).jsonBody() == "{}")
    }

    @Test func jsonBodyEscapesTheQuery() throws {
        let query = "query {\n  a(s: \"x\\y\")\n}"
        let body = GraphQLRequest(query: query).jsonBody()
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(parsed["query"] as? String == query)
    }
}
