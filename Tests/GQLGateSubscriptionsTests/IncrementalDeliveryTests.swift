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
}
