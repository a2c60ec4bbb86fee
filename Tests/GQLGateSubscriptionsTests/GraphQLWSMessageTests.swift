import GQLGatePipeline
import GQLGateSubscriptions
import Testing

@Suite struct GraphQLWSMessageTests {
    @Test func encodesEveryTypeWithTheProtocolsFieldNames() {
        #expect(GraphQLWSMessage.connectionInit(payload: .object([("token", .string("t"))])).encoded()
            == #"{"type":"connection_init","payload":{"token":"t"}}"#)
        #expect(GraphQLWSMessage.connectionAck(payload: nil).encoded() == #"{"type":"connection_ack"}"#)
        #expect(GraphQLWSMessage.connectionError(payload: GraphQLWSMessage.errorObject("no")).encoded()
            == #"{"type":"connection_error","payload":{"message":"no"}}"#)
        #expect(GraphQLWSMessage.keepAlive.encoded() == #"{"type":"ka"}"#)
        #expect(GraphQLWSMessage.start(id: "1", payload: GraphQLRequest(query: "subscription { a }")).encoded()
            == #"{"type":"start","id":"1","payload":{"query":"subscription { a }"}}"#)
        #expect(GraphQLWSMessage.data(id: "1", payload: .object([("data", .null)])).encoded()
            == #"{"type":"data","id":"1","payload":{"data":null}}"#)
        #expect(GraphQLWSMessage.error(id: "1", payload: graphQLError("bad")).encoded()
            == #"{"type":"error","id":"1","payload":{"message":"bad"}}"#)
        #expect(GraphQLWSMessage.complete(id: "1").encoded() == #"{"type":"complete","id":"1"}"#)
        #expect(GraphQLWSMessage.stop(id: "1").encoded() == #"{"type":"stop","id":"1"}"#)
        #expect(GraphQLWSMessage.connectionTerminate.encoded() == #"{"type":"connection_terminate"}"#)
    }

    @Test func everyMessageRoundTrips() throws {
        let messages: [GraphQLWSMessage] = [
            .connectionInit(payload: .object([("authToken", .string("x"))])),
            .connectionAck(payload: nil),
            .connectionError(payload: GraphQLWSMessage.errorObject("no")),
            .keepAlive,
            .start(id: "1", payload: GraphQLRequest(query: "subscription { a }", operationName: "A", variables: .object([]))),
            .data(id: "1", payload: .object([("data", .object([("a", .integer(1))])), ("errors", .array([graphQLError("e")]))])),
            .error(id: "1", payload: graphQLError("bad")),
            .complete(id: "1"),
            .stop(id: "1"),
            .connectionTerminate,
        ]
        for message in messages {
            #expect(try GraphQLWSMessage.decode(message.encoded()) == message)
        }
    }

    @Test func dataWithSerializedPayloadMatchesTheValueEncoding() {
        let value = JSONValue.object([("data", .object([("a", .integer(1))]))])
        #expect(GraphQLWSMessage.data(id: "3", payload: SerializedJSON(value)) == GraphQLWSMessage.data(id: "3", payload: value).encoded())
    }

    @Test func unknownTypesGetTheReferenceServersMessage() {
        #expect(throws: MessageDecodingError("Invalid message type!", id: "4")) {
            try GraphQLWSMessage.decode(#"{"type":"subscribe","id":"4"}"#)
        }
    }

    @Test func startNeedsAnIDAndAQuery() {
        #expect(throws: MessageDecodingError("'start' needs a non-empty string 'id'")) {
            try GraphQLWSMessage.decode(#"{"type":"start","payload":{"query":"{a}"}}"#)
        }
        #expect(throws: MessageDecodingError("'start' payload needs a string 'query'", id: "1")) {
            try GraphQLWSMessage.decode(#"{"type":"start","id":"1","payload":{"variables":{}}}"#)
        }
    }
}
