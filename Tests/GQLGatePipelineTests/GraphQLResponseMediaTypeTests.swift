import GQLGateCore
import GQLGatePipeline
import Testing

@Suite struct GraphQLResponseMediaTypeTests {
    /// An upstream answer of `status`, `contentType` and `body`, as a client of `mediaType` gets it:
    /// "status Content-Type", the body checked unchanged.
    private func delivered(_ status: Int, _ contentType: String?, _ body: String, as mediaType: ResponseMediaType) -> String {
        var headers: HTTPHeaders = ["X-Upstream": "yes"]
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        let answer = GraphQLResponse(status: status, headers: headers, body: Bytes(body), source: .upstream)
        let delivered = answer.delivered(as: mediaType)
        #expect(delivered.body.string == body)
        #expect(delivered.headers["x-upstream"] == "yes")
        #expect(delivered.source == .upstream)
        return "\(delivered.status) \(delivered.headers["content-type"] ?? "-")"
    }

    private let modern = "application/graphql-response+json; charset=utf-8"
    private let legacy = "application/json; charset=utf-8"

    @Test func anAnswerInTheAskedTypeIsUnchanged() {
        #expect(delivered(200, "application/json", #"{"errors":[]}"#, as: .json) == "200 application/json")
        #expect(delivered(400, "application/graphql-response+json", #"{"errors":[]}"#, as: .graphQLResponse)
            == "400 application/graphql-response+json")
    }

    @Test func intoGraphQLResponseJSONAnAnswerWithoutDataIsAnError() {
        #expect(delivered(200, "application/json", #"{"data":{"a":1}}"#, as: .graphQLResponse) == "200 \(modern)")
        #expect(delivered(200, "application/json", #"{"errors":[{"message":"m"}]}"#, as: .graphQLResponse) == "400 \(modern)")
        #expect(delivered(200, "application/json", #" { "errors" : [ ] , "extensions" : {} } "#, as: .graphQLResponse) == "400 \(modern)")
        #expect(delivered(202, "application/json", #"{"extensions":{"a":[1,{"data":1}]},"errors":[{"message":"m"}]}"#, as: .graphQLResponse)
            == "400 \(modern)")
        #expect(delivered(401, "application/json", #"{"errors":[{"message":"m"}]}"#, as: .graphQLResponse) == "401 \(modern)")
        #expect(delivered(503, "application/json; charset=utf-8", #"{"errors":[{"message":"m"}]}"#, as: .graphQLResponse) == "503 \(modern)")
    }

    @Test func intoGraphQLResponseJSONNonNullDataIsA2xx() {
        #expect(delivered(500, "application/json", #"{"errors":[{"message":"m"}],"data":{"a":null}}"#, as: .graphQLResponse) == "200 \(modern)")
        #expect(delivered(206, "application/json", #"{"data":[]}"#, as: .graphQLResponse) == "206 \(modern)")
        #expect(delivered(200, "application/json", #"{"data":null,"errors":[{"message":"m"}]}"#, as: .graphQLResponse) == "200 \(modern)")
        #expect(delivered(500, "application/json", #"{"data":null,"errors":[{"message":"m"}]}"#, as: .graphQLResponse) == "500 \(modern)")
    }

    /// The first `data` member decides; nothing after it is read.
    @Test func intoGraphQLResponseJSONTheBodyIsReadUpToData() {
        #expect(delivered(200, "application/json", #"{"data":{"a":1}} trailing"#, as: .graphQLResponse) == "200 \(modern)")
    }

    @Test func aBodyThatIsNoGraphQLResponseKeepsItsTypeAndStatus() {
        #expect(delivered(200, "application/json", #"{"status":"ok"}"#, as: .graphQLResponse) == "200 application/json")
        #expect(delivered(502, "application/json", "[1,2]", as: .graphQLResponse) == "502 application/json")
        #expect(delivered(200, "application/json", #"{"errors": [}"#, as: .graphQLResponse) == "200 application/json")
        #expect(delivered(200, "application/json", "", as: .graphQLResponse) == "200 application/json")
    }

    @Test func intoJSONGraphQLRequestErrorsAndPartialSuccessAre200() {
        #expect(delivered(200, "application/graphql-response+json", #"{"data":{"a":1}}"#, as: .json) == "200 \(legacy)")
        #expect(delivered(294, "application/graphql-response+json", #"{"data":null,"errors":[]}"#, as: .json) == "200 \(legacy)")
        #expect(delivered(400, "application/graphql-response+json", #"{"errors":[]}"#, as: .json) == "200 \(legacy)")
        #expect(delivered(422, "application/graphql-response+json; charset=utf-8", #"{"errors":[]}"#, as: .json) == "200 \(legacy)")
    }

    @Test func intoJSONOtherStatusesStay() {
        for status in [401, 403, 404, 405, 406, 413, 415, 429, 500, 502, 503, 504] {
            #expect(delivered(status, "application/graphql-response+json", #"{"errors":[]}"#, as: .json) == "\(status) \(legacy)")
        }
    }

    @Test func otherMediaTypesPassAsTheyAre() {
        #expect(delivered(200, "multipart/mixed; boundary=\"-\"", "---", as: .graphQLResponse) == "200 multipart/mixed; boundary=\"-\"")
        #expect(delivered(502, "text/html", "<h1>Bad Gateway</h1>", as: .json) == "502 text/html")
        #expect(delivered(200, nil, #"{"errors":[]}"#, as: .graphQLResponse) == "200 -")
        #expect(delivered(200, "application/json; charset=iso-8859-1", #"{"errors":[]}"#, as: .graphQLResponse)
            == "200 application/json; charset=iso-8859-1")
    }
}
