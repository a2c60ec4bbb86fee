import GQLGateCore
@testable import GQLGateDemo
import GQLGateEventLoop
import GQLGateHTTPClient
import GQLGatePipeline
import GQLGateTransports
import GQLGateWebSocket
import Testing

/// The demo API's WebSocket side over loopback: a client upgrades, follows
/// `reviewAdded`, and sees the reviews created with plain HTTP requests.
@Suite(.timeLimit(.minutes(1))) struct DemoWebSocketTests {
    private static let subscribeJEDI =
        #"{"query":"subscription { reviewAdded(episode: JEDI) { id episode stars } }"}"#
    private static let heroQuery = #"{"query":"{ hero { name } }"}"#

    private static func withRunningDemo(_ body: (DemoAPI, HTTPClient) async throws -> Void) async throws {
        let group = EventLoopGroup(count: 1)
        let client = HTTPClient(group: group)
        defer { withExtendedLifetime(client) { group.shutdownAndWait() } }  // curl timers on the loop refer to the client
        let demo = DemoAPI(host: "127.0.0.1", port: 0)
        try demo.start()
        defer { demo.stop() }
        try await body(demo, client)
    }

    /// Creates a review with a POST to the demo's HTTP endpoint.
    private static func createReview(_ episode: String, stars: Int, demo: DemoAPI, client: HTTPClient) async throws {
        let body = #"{"query":"mutation { createReview(episode: \#(episode), review: { stars: \#(stars) }) { id } }"}"#
        let response = try await client.execute(HTTPClientRequest(
            url: demo.endpoint, method: .post, headers: ["Content-Type": "application/json"], body: Bytes(body)))
        #expect(response.status == 200)
        #expect(!response.body.string.contains("errors"), "\(response.body.string)")
    }

    private static func reviewAdded(in message: JSONValue?) -> JSONValue? {
        message?["payload"]?["data"]?["reviewAdded"]
    }

    private static func isComplete(_ message: JSONValue?, id: String) -> Bool {
        message?["type"] == .string("complete") && message?["id"] == .string(id)
    }

    @Test func graphqlTransportWSFollowsReviewsCreatedOverHTTP() async throws {
        try await Self.withRunningDemo { demo, client in
            let socket = try await DemoWebSocketClient.connect(
                demo.webSocketEndpoint, subprotocols: ["graphql-transport-ws", "graphql-ws"], client: client)
            #expect(socket.subprotocol == "graphql-transport-ws")
            try await socket.send(#"{"type":"connection_init"}"#)
            #expect(await socket.nextMessage()?["type"] == .string("connection_ack"))

            try await socket.send(#"{"id":"1","type":"subscribe","payload":\#(Self.subscribeJEDI)}"#)
            // Operations of one socket start in order: once the query answers, the subscription listens.
            try await socket.send(#"{"id":"2","type":"subscribe","payload":\#(Self.heroQuery)}"#)
            let hero = await socket.nextMessage()
            #expect(hero?["id"] == .string("2"))
            #expect(hero?["type"] == .string("next"))
            #expect(hero?["payload"]?["data"]?["hero"]?["name"] == .string("R2-D2"))
            #expect(Self.isComplete(await socket.nextMessage(), id: "2"))
            #expect(demo.reviews.observerCount == 1)

            try await Self.createReview("EMPIRE", stars: 5, demo: demo, client: client)
            try await Self.createReview("JEDI", stars: 4, demo: demo, client: client)
            let event = await socket.nextMessage()
            #expect(event?["id"] == .string("1"))
            #expect(event?["type"] == .string("next"))
            #expect(Self.reviewAdded(in: event) == .object([("id", .string("2")), ("episode", .string("JEDI")), ("stars", .integer(4))]))

            try await socket.send(#"{"id":"1","type":"complete"}"#)
            try await waitUntil("the completed subscription stops following the store") { demo.reviews.observerCount == 0 }
            await socket.close()
            #expect(await socket.next() == .closed(code: 1000))
            try await waitUntil("the server side is closed") { demo.openWebSocketConnections == 0 }
        }
    }

    @Test func legacyGraphqlWSFollowsReviewsUntilTheSocketCloses() async throws {
        try await Self.withRunningDemo { demo, client in
            let socket = try await DemoWebSocketClient.connect(demo.webSocketEndpoint, subprotocols: ["graphql-ws"], client: client)
            #expect(socket.subprotocol == "graphql-ws")
            try await socket.send(#"{"type":"connection_init","payload":{}}"#)
            try await socket.send(#"{"id":"a","type":"start","payload":\#(Self.subscribeJEDI)}"#)
            try await socket.send(#"{"id":"b","type":"start","payload":\#(Self.heroQuery)}"#)
            #expect(await socket.nextMessage()?["type"] == .string("connection_ack"))
            let hero = await socket.nextMessage()
            #expect(hero?["id"] == .string("b"))
            #expect(hero?["type"] == .string("data"))
            #expect(Self.isComplete(await socket.nextMessage(), id: "b"))
            #expect(demo.reviews.observerCount == 1)

            try await Self.createReview("JEDI", stars: 3, demo: demo, client: client)
            let event = await socket.nextMessage()
            #expect(event?["id"] == .string("a"))
            #expect(event?["type"] == .string("data"))
            #expect(Self.reviewAdded(in: event)?["stars"] == .integer(3))

            try await socket.send(#"{"id":"a","type":"stop"}"#)
            #expect(Self.isComplete(await socket.nextMessage(), id: "a"))
            try await waitUntil("the stopped subscription stops following the store") { demo.reviews.observerCount == 0 }

            try await socket.send(#"{"id":"c","type":"start","payload":\#(Self.subscribeJEDI)}"#)
            try await socket.send(#"{"id":"d","type":"start","payload":\#(Self.heroQuery)}"#)
            #expect(await socket.nextMessage()?["id"] == .string("d"))
            #expect(Self.isComplete(await socket.nextMessage(), id: "d"))
            #expect(demo.reviews.observerCount == 1)
            await socket.close()
            #expect(await socket.next() == .closed(code: 1000))
            try await waitUntil("closing the socket ends its subscription") { demo.reviews.observerCount == 0 }
            try await waitUntil("the server side is closed") { demo.openWebSocketConnections == 0 }
        }
    }

    @Test func stoppingTheDemoCompletesSubscriptionsAndCloses() async throws {
        let group = EventLoopGroup(count: 1)
        let client = HTTPClient(group: group)
        defer { withExtendedLifetime(client) { group.shutdownAndWait() } }
        let demo = DemoAPI(host: "127.0.0.1", port: 0)
        try demo.start()
        let socket = try await DemoWebSocketClient.connect(demo.webSocketEndpoint, subprotocols: ["graphql-transport-ws"], client: client)
        try await socket.send(#"{"type":"connection_init"}"#)
        #expect(await socket.nextMessage()?["type"] == .string("connection_ack"))
        try await socket.send(#"{"id":"1","type":"subscribe","payload":\#(Self.subscribeJEDI)}"#)
        try await waitUntil("the subscription listens") { demo.reviews.observerCount == 1 }

        let stopping = Task.detached { demo.stop() }
        #expect(Self.isComplete(await socket.nextMessage(), id: "1"))
        #expect(await socket.next() == .closed(code: 1001))
        await stopping.value
        #expect(demo.reviews.observerCount == 0)
        #expect(demo.openWebSocketConnections == 0)
    }

    @Test func upgradesWithoutAGraphQLSubprotocolAreRefused() async throws {
        try await Self.withRunningDemo { demo, client in
            await #expect(throws: WebSocketError.self) {
                _ = try await client.openWebSocket(url: demo.webSocketEndpoint, subprotocols: ["chat"])
            }
            await #expect(throws: WebSocketError.self) {
                _ = try await client.openWebSocket(url: demo.webSocketEndpoint)
            }
        }
    }
}
