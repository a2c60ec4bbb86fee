import GQLGatePipeline
import GQLGateSubscriptions
import Testing

@Suite struct GraphQLTransportWSMessageTests {
    @Test func encodesEveryTypeWithTheProtocolsFieldNames() {
        let request = GraphQLRequest(query: "subscription S { a }", operationName: "S", variables: .object([("x", .integer(1))]))
        #expect(GraphQLTransportWSMessage.connectionInit(payload: nil).encoded() == #"{"type":"connection_init"}"#)
        #expect(GraphQLTransportWSMessage.connectionInit(payload: .object([("k", .string("v"))])).encoded()
            == #"{"type":"connection_init","payload":{"k":"v"}}"#)
        #expect(GraphQLTransportWSMessage.connectionAck(payload: nil).encoded() == #"{"type":"connection_ack"}"#)
        #expect(GraphQLTransportWSMessage.ping(payload: nil).encoded() == #"{"type":"ping"}"#)
        #expect(GraphQLTransportWSMessage.pong(payload: .object([])).encoded() == #"{"type":"pong","payload":{}}"#)
        #expect(GraphQLTransportWSMessage.subscribe(id: "1", payload: request).encoded()
            == #"{"type":"subscribe","id":"1","payload":{"query":"subscription S { a }","operationName":"S","variables":{"x":1}}}"#)
        #expect(GraphQLTransportWSMessage.next(id: "1", payload: .object([("data", .null)])).encoded()
            == #"{"type":"next","id":"1","payload":{"data":null}}"#)
        #expect(GraphQLTransportWSMessage.error(id: "1", payload: [graphQLError("no")]).encoded()
            == #"{"type":"error","id":"1","payload":[{"message":"no"}]}"#)
        #expect(GraphQLTransportWSMessage.complete(id: "1").encoded() == #"{"type":"complete","id":"1"}"#)
        #expect(GraphQLTransportWSMessage.next(id: "a\"b\n", payload: .object([("data", .null)])).encoded()
            == #"{"type":"next","id":"a\"b\n","payload":{"data":null}}"#)
    }

    @Test func everyMessageRoundTrips() throws {
        let messages: [GraphQLTransportWSMessage] = [
            .connectionInit(payload: .object([("Authorization", .string("Bearer t"))])),
            .connectionInit(payload: nil),
            .connectionAck(payload: .object([("server", .string("gqlgate"))])),
            .ping(payload: nil),
            .pong(payload: .object([("at", .integer(1))])),
            .subscribe(id: "a\"b", payload: GraphQLRequest(query: "subscription { t }", extensions: .object([]))),
            .next(id: "1", payload: .object([("data", .object([("t", .integer(1))])), ("hasNext", .bool(true))])),
            .error(id: "1", payload: [graphQLError("x"), graphQLError("y")]),
            .complete(id: "1"),
        ]
        for message in messages {
            #expect(try GraphQLTransportWSMessage.decode(message.encoded()) == message)
        }
    }

    @Test func nextWithSerializedPayloadMatchesTheValueEncoding() {
        let value = JSONValue.object([("data", .object([("t", .integer(1))]))])
        #expect(GraphQLTransportWSMessage.next(id: "7", payload: SerializedJSON(value))
            == GraphQLTransportWSMessage.next(id: "7", payload: value).encoded())
    }

    @Test func nullPayloadsAndOptionalRequestFieldsCountAsAbsent() throws {
        #expect(try GraphQLTransportWSMessage.decode(#"{"type":"connection_init","payload":null}"#) == .connectionInit(payload: nil))
        let subscribe = #"{"id":"1","type":"subscribe","payload":{"query":"{a}","operationName":null,"variables":null,"extensions":null}}"#
        #expect(try GraphQLTransportWSMessage.decode(subscribe) == .subscribe(id: "1", payload: GraphQLRequest(query: "{a}")))
    }

    @Test func aPayloadMayNameAPersistedDocumentInsteadOfSendingItsText() throws {
        func payload(_ json: String) throws -> GraphQLRequest? {
            guard case .subscribe(_, let request) = try GraphQLTransportWSMessage.decode(#"{"type":"subscribe","id":"1","payload":"# + json + "}")
            else { return nil }
            return request
        }
        #expect(try payload(#"{"documentId":"sha256:ab","doc_id":"d","id":"i"}"#) == GraphQLRequest(query: nil, documentID: "sha256:ab"))
        #expect(try payload(#"{"doc_id":"d","id":"i","variables":{"n":1}}"#)
            == GraphQLRequest(query: nil, variables: .object([("n", .integer(1))]), documentID: "d"))
        #expect(try payload(#"{"id":"i","query":"{a}"}"#) == GraphQLRequest(query: "{a}", documentID: "i"))
        let apq = JSONValue.object([("persistedQuery", .object([("version", .integer(1)), ("sha256Hash", .string("ab"))]))])
        #expect(try payload(#"{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"ab"}}}"#)
            == GraphQLRequest(query: nil, extensions: apq))
    }

    @Test(arguments: [
        ("not json", "Invalid JSON at byte 0"),
        ("[]", "A message must be a JSON object"),
        (#"{"id":"1"}"#, "A message needs a string 'type'"),
        (#"{"type":"start","id":"1"}"#, "Unknown message type 'start'"),
        (#"{"type":"subscribe","payload":{"query":"{a}"}}"#, "'subscribe' needs a non-empty string 'id'"),
        (#"{"type":"subscribe","id":"","payload":{"query":"{a}"}}"#, "'subscribe' needs a non-empty string 'id'"),
        (#"{"type":"subscribe","id":"1"}"#, "'subscribe' needs an object 'payload'"),
        (#"{"type":"subscribe","id":"1","payload":{}}"#, "'subscribe' payload needs a string 'query'"),
        (#"{"type":"subscribe","id":"1","payload":{"query":"{a}","variables":[]}}"#,
         "'subscribe' payload 'variables' must be an object or null"),
        (#"{"type":"subscribe","id":"1","payload":{"query":"{a}","operationName":1}}"#,
         "'subscribe' payload 'operationName' must be a string or null"),
        (#"{"type":"connection_init","payload":"x"}"#, "'connection_init' payload must be an object or null"),
        (#"{"type":"complete","id":7}"#, "'complete' needs a non-empty string 'id'"),
        (#"{"type":"error","id":"1","payload":{"message":"x"}}"#, "'error' payload must be a non-empty array of GraphQL errors"),
    ])
    func refusesMalformedMessagesWithAReason(text: String, reason: String) {
        let error = #expect(throws: MessageDecodingError.self) { try GraphQLTransportWSMessage.decode(text) }
        #expect(error?.reason == reason)
    }

    @Test(arguments: [
        (#"{"type":"subscribe","type":"complete","id":"1","payload":{"query":"{a}"}}"#, "type", "1"),
        (#"{"type":"subscribe","id":"1","payload":{"query":"{a}"},"payload":{"query":"{b}"}}"#, "payload", "1"),
        (#"{"type":"subscribe","id":"1","payload":{"query":"{a}","query":"{b}"}}"#, "query", "1"),
        (#"{"type":"subscribe","id":"1","payload":{"query":"{a}","operationName":"A","operationName":"B"}}"#, "operationName", "1"),
        (#"{"type":"subscribe","id":"1","payload":{"query":"{a}","variables":{"v":{"w":1,"w":2}}}}"#, "w", "1"),
        (#"{"type":"subscribe","id":"1","payload":{"query":"{a}","extensions":{"persistedQuery":{"version":1,"version":1}}}}"#, "version", "1"),
        (#"{"type":"connection_init","payload":{"headers":{"authorization":"a","authorization":"b"}}}"#, "authorization", nil),
        (#"{"type":"connection_init","payload":{"x-api-key":"a","x-api-key":"b"}}"#, "x-api-key", nil),
    ])
    func aClientMessageThatRepeatsAKeyIsRefused(text: String, key: String, id: String?) throws {
        let error = #expect(throws: MessageDecodingError.self) { try GraphQLTransportWSMessage.decode(text) }
        #expect(error?.reason == #"The message repeats the key "\#(key)" in one object"#)
        #expect(error?.id == id)
    }

    @Test func theUpstreamsMessagesAreReadWithRepeatedKeysAsSent() throws {
        let next = #"{"type":"next","id":"1","payload":{"data":{"a":1,"a":2.50}}}"#
        #expect(try GraphQLTransportWSMessage.decode(next, refusingRepeatedKeys: false)
            == .next(id: "1", payload: .object([("data", .object([("a", .integer(1)), ("a", .number("2.50"))]))])))
    }

    @Test func aMessageNestedPastTheBoundIsRefusedSayingSo() {
        let text = #"{"type":"subscribe","id":"1","payload":{"query":"{a}","variables":{"v":"# + String(repeating: "[", count: 100_000) + "}}}"
        let error = #expect(throws: MessageDecodingError.self) { try GraphQLTransportWSMessage.decode(text) }
        #expect(error?.reason == "The message nests arrays and objects deeper than \(JSONReader.maximumDepth) levels")
    }

    @Test func aDecodingErrorCarriesTheMessagesID() {
        let error = #expect(throws: MessageDecodingError.self) {
            try GraphQLTransportWSMessage.decode(#"{"type":"subscribe","id":"9","payload":{}}"#)
        }
        #expect(error?.id == "9")
    }
}
