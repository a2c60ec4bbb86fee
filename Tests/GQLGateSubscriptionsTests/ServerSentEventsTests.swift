import GQLGatePipeline
import GQLGateSubscriptions
import Testing

@Suite struct ServerSentEventsTests {
    @Test func nextIsOneEventWithTheResultAsData() {
        #expect(ServerSentEvents.next(SerializedJSON(.object([("data", .object([("t", .integer(1))]))])))
            == "event: next\ndata: {\"data\":{\"t\":1}}\n\n")
    }

    @Test func multiLineResultsBecomeOneDataLinePerLine() {
        #expect(ServerSentEvents.next(SerializedJSON(trusted: "{\n  \"data\": null\r\n}"))
            == "event: next\ndata: {\ndata:   \"data\": null\ndata: }\n\n")
    }

    @Test func completeKeepAliveAndHeaders() {
        #expect(ServerSentEvents.complete == "event: complete\ndata:\n\n")
        #expect(ServerSentEvents.keepAlive == ":\n\n")
        #expect(ServerSentEvents.responseHeaders["Content-Type"] == "text/event-stream; charset=utf-8")
        #expect(ServerSentEvents.responseHeaders["Cache-Control"] == "no-cache")
    }

    @Test func acceptNegotiation() {
        #expect(ServerSentEvents.isAccepted(by: "text/event-stream"))
        #expect(ServerSentEvents.isAccepted(by: "application/json, Text/Event-Stream;q=0.9"))
        #expect(!ServerSentEvents.isAccepted(by: "application/json"))
        #expect(!ServerSentEvents.isAccepted(by: "*/*"))
        #expect(!ServerSentEvents.isAccepted(by: "text/event-stream;q=0, application/json"))
    }
}
