import GQLGateCore
import GQLGatePipeline
import Testing

@Suite struct OperationUpstreamAcceptTests {
    private func upstreamAccept(_ accept: String?, delivery: ResultDelivery = .single) -> String {
        let headers: HTTPHeaders = accept.map { ["Accept": $0] } ?? [:]
        return Operation(request: GraphQLRequest(query: "{ a }"), clientTransport: .httpPost, delivery: delivery, headers: headers, requestID: "r")
            .upstreamAccept
    }

    @Test func theUpstreamIsAskedForEitherGraphQLMediaType() {
        for accept in [nil, "application/json", "application/graphql-response+json", "*/*", "text/event-stream", "multipart/*"] {
            #expect(upstreamAccept(accept) == "application/graphql-response+json, application/json;q=0.9", "\(String(describing: accept))")
        }
    }

    @Test func anAcceptNamingMultipartMixedGoesAsItIsOnASingleAnswer() {
        let incremental = "multipart/mixed;deferSpec=20220824, application/json"
        #expect(upstreamAccept(incremental) == incremental)
        #expect(upstreamAccept("Multipart/Mixed") == "Multipart/Mixed")
        #expect(upstreamAccept("multipart/mixed;q=0, application/json") == Operation.gatewayAccept)
        #expect(upstreamAccept("multipart/mixed;subscriptionSpec=1.0, application/json", delivery: .multipart) == Operation.gatewayAccept)
    }
}
