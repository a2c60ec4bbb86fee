import GQLGateSubscriptions
import Testing

@Suite struct WebSocketCloseTests {
    @Test func theProtocolsCodesAndReasons() {
        #expect(WebSocketClose.badRequest("Invalid JSON at byte 0") == WebSocketClose(code: 4400, reason: "Invalid JSON at byte 0"))
        #expect(WebSocketClose.unauthorized == WebSocketClose(code: 4401, reason: "Unauthorized"))
        #expect(WebSocketClose.forbidden == WebSocketClose(code: 4403, reason: "Forbidden"))
        #expect(WebSocketClose.initTimeout == WebSocketClose(code: 4408, reason: "Connection initialisation timeout"))
        #expect(WebSocketClose.subscriberExists("abc") == WebSocketClose(code: 4409, reason: "Subscriber for abc already exists"))
        #expect(WebSocketClose.tooManyInitRequests == WebSocketClose(code: 4429, reason: "Too many initialisation requests"))
    }

    @Test func reasonsAreCutTo123BytesAtACharacterBoundary() {
        let ascii = WebSocketClose(code: 4400, reason: String(repeating: "a", count: 200))
        #expect(ascii.reason.utf8.count == 123)
        let wide = WebSocketClose(code: 4400, reason: String(repeating: "é", count: 100))
        #expect(wide.reason.utf8.count == 122)
        #expect(wide.reason == String(repeating: "é", count: 61))
    }
}

@Suite struct WebSocketSubprotocolTests {
    @Test func prefersGraphQLTransportWS() {
        #expect(WebSocketSubprotocol.select(offered: ["graphql-ws, graphql-transport-ws"]) == .graphqlTransportWS)
        #expect(WebSocketSubprotocol.select(offered: ["graphql-ws", "graphql-transport-ws"]) == .graphqlTransportWS)
    }

    @Test func fallsBackToTheLegacyProtocol() {
        #expect(WebSocketSubprotocol.select(offered: ["graphql-ws"]) == .graphqlWS)
        #expect(WebSocketSubprotocol.select(offered: ["chat,  graphql-ws "]) == .graphqlWS)
    }

    @Test func refusesOthers() {
        #expect(WebSocketSubprotocol.select(offered: []) == nil)
        #expect(WebSocketSubprotocol.select(offered: ["graphql-subscriptions, chat"]) == nil)
    }
}
