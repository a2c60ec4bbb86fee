@testable import GQLGate
import GQLGateCore
import GQLGatePipeline
import GQLGateSubscriptions
import Testing

@Suite struct WebSocketResultTests {
    private func response(_ status: Int, _ body: String) -> GraphQLResponse {
        GraphQLResponse(status: status, headers: HTTPHeaders(), body: Bytes(body), source: .upstream)
    }

    @Test func aGraphQLResponseIsPassedOnAsItIsWhateverItsStatus() {
        #expect(WebSocketResult.event(for: response(200, #"{"data":{"hello":"hi"}}"#), id: "1")
            == .result(id: "1", payload: SerializedJSON(trusted: #"{"data":{"hello":"hi"}}"#)))
        #expect(WebSocketResult.event(for: response(400, #"{"errors":[{"message":"bad"}]}"#), id: "2")
            == .result(id: "2", payload: SerializedJSON(trusted: #"{"errors":[{"message":"bad"}]}"#)))
    }

    @Test func anAnswerThatIsNotAGraphQLResponseFailsWithUpstreamUnavailable() {
        let error = JSONValue.object([
            ("message", .string("The upstream answered 502 without a GraphQL response.")),
            ("extensions", .object([("code", .string("UPSTREAM_UNAVAILABLE"))])),
        ])
        #expect(WebSocketResult.event(for: response(502, "<html>Bad Gateway</html>"), id: "1") == .failed(id: "1", errors: [error]))
    }

    @Test func streamErrorsKeepTheirGraphQLErrorsAndGatewayErrorsTheirCode() {
        let upstream = JSONValue.object([("message", .string("boom"))])
        #expect(WebSocketResult.event(for: GraphQLErrorsFailure(errors: [upstream]), id: "1") == .failed(id: "1", errors: [upstream]))
        #expect(WebSocketResult.event(for: GatewayError.parseFailed("Syntax Error"), id: "2")
            == .failed(id: "2", errors: [.object([
                ("message", .string("Syntax Error")), ("extensions", .object([("code", .string("GRAPHQL_PARSE_FAILED"))])),
            ])]))
    }
}
