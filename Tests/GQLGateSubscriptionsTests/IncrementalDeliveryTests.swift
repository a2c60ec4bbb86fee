import GQLGatePipeline
import GQLGateSubscriptions
import Testing

@Suite struct IncrementalDeliveryTests {
    @Test(arguments: [
        "multipart/mixed;deferSpec=20220824,application/json",
        "multipart/mixed; deferSpec=20220824, application/graphql-response+json, application/json;q=0.9",
        "application/json, multipart/mixed",
        "Multipart/Mixed;q=0.5",
        "multipart/mixed; incrementalDeliverySpec=3283f8a",
    ])
    func aMultipartMixedRangeAdmitsAnIncrementalAnswer(accept: String) {
        #expect(IncrementalDelivery.isAccepted(by: accept))
    }

    @Test(arguments: [
        nil, "", "application/json", "*/*", "multipart/*", "text/event-stream",
        "multipart/mixed;subscriptionSpec=1.0, application/json",
        "multipart/mixed;boundary=\"graphql\";subscriptionSpec=\"1.0\"",
        "multipart/mixed;q=0, application/json",
        "multipart/mixed; q=0.000",
    ] as [String?])
    func anythingElseDoesNot(accept: String?) {
        #expect(!IncrementalDelivery.isAccepted(by: accept))
    }

    @Test(arguments: [
        (nil, "multipart/mixed; boundary=\"-\""),
        ("multipart/mixed; boundary=\"-\"", "multipart/mixed; boundary=\"-\""),
        ("multipart/mixed;boundary=\"graphql\";deferSpec=20220824", "multipart/mixed; boundary=\"-\"; deferSpec=20220824"),
        ("multipart/mixed; incrementalDeliverySpec=3283f8a; Boundary=abc", "multipart/mixed; boundary=\"-\"; incrementalDeliverySpec=3283f8a"),
    ] as [(String?, String)])
    func theAnswersTypeHasGqlgatesBoundaryAndTheUpstreamsOtherParameters(upstream: String?, answered: String) {
        #expect(IncrementalDelivery.contentType(replacing: upstream) == answered)
    }

    @Test func aBodyIsTheOpeningPartsEachEndingWithTheDelimiterThenTheClosing() {
        let body = IncrementalDelivery.opening + IncrementalDelivery.part(#"{"data":{},"hasNext":true}"#)
            + IncrementalDelivery.failure([.object([("message", .string("gone"))])]) + IncrementalDelivery.closing
        #expect(body == "\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{\"data\":{},\"hasNext\":true}\r\n---"
            + "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{\"errors\":[{\"message\":\"gone\"}],\"hasNext\":false}\r\n-----\r\n")
    }
}
