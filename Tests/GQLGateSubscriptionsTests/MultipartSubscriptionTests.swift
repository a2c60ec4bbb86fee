import GQLGatePipeline
import GQLGateSubscriptions
import Testing

@Suite struct MultipartSubscriptionTests {
    @Test func aStreamOfResultsHeartbeatsAndTheEnd() {
        let body = MultipartSubscription.opening
            + MultipartSubscription.result(SerializedJSON(.object([("data", .object([("t", .integer(1))]))])))
            + MultipartSubscription.heartbeat
            + MultipartSubscription.result(SerializedJSON(.object([("data", .null), ("errors", .array([graphQLError("e")]))])))
            + MultipartSubscription.closing
        #expect(body == "\r\n--graphql"
            + "\r\ncontent-type: application/json\r\n\r\n{\"payload\":{\"data\":{\"t\":1}}}\r\n--graphql"
            + "\r\ncontent-type: application/json\r\n\r\n{}\r\n--graphql"
            + "\r\ncontent-type: application/json\r\n\r\n{\"payload\":{\"data\":null,\"errors\":[{\"message\":\"e\"}]}}\r\n--graphql"
            + "--\r\n")
    }

    @Test func aTransportErrorIsAPayloadNullPartThenTheEnd() {
        let tail = MultipartSubscription.transportError([graphQLError("upstream gone")]) + MultipartSubscription.closing
        #expect(tail == "\r\ncontent-type: application/json\r\n\r\n{\"payload\":null,\"errors\":[{\"message\":\"upstream gone\"}]}"
            + "\r\n--graphql--\r\n")
    }

    @Test func contentTypeNamesTheBoundaryAndSpec() {
        #expect(MultipartSubscription.contentType == "multipart/mixed;boundary=\"graphql\";subscriptionSpec=1.0")
    }

    @Test func acceptNegotiationIsLenientAboutQuotesAndSpaces() {
        #expect(MultipartSubscription.isAccepted(by: "multipart/mixed;subscriptionSpec=\"1.0\", application/json"))
        #expect(MultipartSubscription.isAccepted(by: "multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/json"))
        #expect(MultipartSubscription.isAccepted(by: "multipart/mixed; boundary=\"graphql\"; subscriptionSpec=\"1.0\""))
        #expect(!MultipartSubscription.isAccepted(by: "multipart/mixed;deferSpec=20220824"))
        #expect(!MultipartSubscription.isAccepted(by: "application/json"))
        #expect(!MultipartSubscription.isAccepted(by: "multipart/mixed;subscriptionSpec=1.0;q=0, application/json"))
    }
}
