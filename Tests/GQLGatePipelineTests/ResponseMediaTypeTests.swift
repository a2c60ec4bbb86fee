import GQLGatePipeline
import Testing

@Suite struct ResponseMediaTypeTests {
    /// Accept → the media type of the answer; "406" where the header admits none.
    @Test(arguments: [
        // Missing, empty, or naming no JSON type beside a stream: gqlgate's choice.
        (nil, "graphql-response+json"),
        ("", "graphql-response+json"),
        ("  ", "graphql-response+json"),
        ("text/event-stream", "graphql-response+json"),
        ("multipart/mixed;deferSpec=20220824", "graphql-response+json"),
        ("multipart/mixed;subscriptionSpec=1.0", "graphql-response+json"),
        // One type named.
        ("application/graphql-response+json", "graphql-response+json"),
        ("application/json", "json"),
        ("Application/JSON; charset=UTF-8", "json"),
        ("application/graphql-response+json; charset=utf-8", "graphql-response+json"),
        ("application/json;charset=utf8", "json"),
        // Both named: the weights decide, then the spec's type.
        ("application/graphql-response+json, application/json;q=0.9", "graphql-response+json"),
        ("application/json, application/graphql-response+json", "graphql-response+json"),
        ("application/json;q=1, application/graphql-response+json;q=0.8", "json"),
        ("application/graphql-response+json;q=0.5, application/json;q=0.6", "json"),
        ("application/json;q=0, application/graphql-response+json", "graphql-response+json"),
        // Wildcards: application/json when they alone admit both; a named type wins a tie.
        ("*/*", "json"),
        ("application/*", "json"),
        ("*/*;q=0.8", "json"),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "json"),
        ("application/graphql-response+json, */*", "graphql-response+json"),
        ("application/graphql-response+json;q=0.8, */*", "json"),
        ("*/*;q=0.5, application/graphql-response+json;q=0.5", "graphql-response+json"),
        ("application/json, */*", "json"),
        ("application/graphql-response+json;q=0, */*", "json"),
        ("application/json;q=0, */*", "graphql-response+json"),
        ("multipart/mixed;deferSpec=20220824, application/json", "json"),
        ("text/event-stream, application/graphql-response+json", "graphql-response+json"),
        // A charset other than UTF-8 admits neither type.
        ("application/json; charset=iso-8859-1", "406"),
        ("application/json; charset=iso-8859-1, */*;q=0.1", "json"),
        ("application/graphql-response+json; charset=utf-16, application/json;q=0.5", "json"),
        // Nothing gqlgate can answer in.
        ("text/html", "406"),
        ("application/xml, text/plain", "406"),
        ("*/*;q=0", "406"),
        ("application/json;q=0", "406"),
        ("text/event-stream;q=0", "406"),
    ] as [(String?, String)])
    func negotiation(accept: String?, chosen: String) {
        let negotiated = ResponseMediaType.negotiated(byAccept: accept)
        #expect(negotiated.map { $0 == .json ? "json" : "graphql-response+json" } ?? "406" == chosen)
    }

    @Test func contentTypes() {
        #expect(ResponseMediaType.graphQLResponse.contentType == "application/graphql-response+json; charset=utf-8")
        #expect(ResponseMediaType.json.contentType == "application/json; charset=utf-8")
        #expect(ResponseMediaType(contentType: "application/json") == .json)
        #expect(ResponseMediaType(contentType: "Application/Json; Charset=\"UTF-8\"") == .json)
        #expect(ResponseMediaType(contentType: "application/graphql-response+json;charset=utf-8") == .graphQLResponse)
        #expect(ResponseMediaType(contentType: "application/json; charset=iso-8859-1") == nil)
        #expect(ResponseMediaType(contentType: "text/html") == nil)
        #expect(ResponseMediaType(contentType: "multipart/mixed; boundary=\"-\"") == nil)
        #expect(ResponseMediaType(contentType: nil) == nil)
    }
}
