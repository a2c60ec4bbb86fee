import GQLGateCore
@testable import GQLGateWebSocket
import Testing

@Suite struct WebSocketHandshakeTests {
    let upgrade: HTTPHeaders = [
        "Host": "example.com", "Upgrade": "websocket", "Connection": "keep-alive, Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13",
    ]

    @Test func acceptValueMatchesTheRFCSample() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func acceptsAValidUpgradeWithTheAcceptHeader() throws {
        let accepted = try WebSocketHandshake.acceptUpgrade(method: "GET", headers: upgrade, supportedSubprotocols: [])
        #expect(accepted.subprotocol == nil)
        #expect(accepted.responseHeaders["upgrade"] == "websocket")
        #expect(accepted.responseHeaders["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(!accepted.responseHeaders.contains("sec-websocket-protocol"))
    }

    @Test func choosesTheServersFavouriteAmongOfferedSubprotocols() throws {
        var headers = upgrade
        headers.add(name: "Sec-WebSocket-Protocol", value: "graphql-ws, chat")
        headers.add(name: "Sec-WebSocket-Protocol", value: "graphql-transport-ws")
        let accepted = try WebSocketHandshake.acceptUpgrade(
            method: "GET", headers: headers, supportedSubprotocols: ["graphql-transport-ws", "graphql-ws"])
        #expect(accepted.subprotocol == "graphql-transport-ws")
        #expect(accepted.responseHeaders.values(for: "sec-websocket-protocol") == ["graphql-transport-ws"])
        let none = try WebSocketHandshake.acceptUpgrade(method: "GET", headers: headers, supportedSubprotocols: ["mqtt"])
        #expect(none.subprotocol == nil)
    }

    @Test(arguments: [
        ("POST", "Upgrade", "websocket"), ("GET", "Upgrade", "h2c"), ("GET", "Connection", "keep-alive"),
        ("GET", "Sec-WebSocket-Key", "dG9vIHNob3J0"), ("GET", "Sec-WebSocket-Key", "not base64 at all!!!!!!="),
    ])
    func rejectsMalformedUpgradesWith400(method: String, field: String, value: String) {
        var headers = upgrade
        headers.replaceOrAdd(name: field, value: value)
        #expect {
            try WebSocketHandshake.acceptUpgrade(method: method, headers: headers, supportedSubprotocols: [])
        } throws: { ($0 as? WebSocketError)?.kind == .badUpgradeRequest && ($0 as? WebSocketError)?.httpStatus == 400 }
    }

    @Test func rejectsOtherVersionsWith426AndTheSupportedVersion() {
        var headers = upgrade
        headers.replaceOrAdd(name: "Sec-WebSocket-Version", value: "8")
        do {
            _ = try WebSocketHandshake.acceptUpgrade(method: "GET", headers: headers, supportedSubprotocols: [])
            Issue.record("version 8 was accepted")
        } catch {
            #expect(error.kind == .unsupportedVersion)
            #expect(error.httpStatus == 426)
            #expect(error.responseHeaders["sec-websocket-version"] == "13")
        }
    }

    // MARK: - Client side

    let client = WebSocketClientHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==", subprotocols: ["graphql-transport-ws", "graphql-ws"])

    @Test func buildsTheUpgradeRequest() {
        let text = String(decoding: client.request(host: "api:4000", path: "/graphql?x=1", headers: ["Authorization": "Bearer t", "Upgrade": "evil", "X-Bad": "a\r\nInjected: 1"]), as: UTF8.self)
        #expect(text.hasPrefix("GET /graphql?x=1 HTTP/1.1\r\nHost: api:4000\r\n"))
        #expect(text.contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"))
        #expect(text.contains("Sec-WebSocket-Version: 13\r\n"))
        #expect(text.contains("Sec-WebSocket-Protocol: graphql-transport-ws, graphql-ws\r\n"))
        #expect(text.contains("Authorization: Bearer t\r\n"))
        #expect(!text.contains("evil") && !text.contains("Injected"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test func randomKeysAreBase64Of16Bytes() {
        let a = WebSocketClientHandshake(), b = WebSocketClientHandshake()
        #expect(a.key.count == 24 && a.key.hasSuffix("=="))
        #expect(a.key != b.key)
    }

    func answer(_ lines: [String], extra: [UInt8] = []) -> [UInt8] {
        Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + extra
    }

    @Test func parsesA101AndKeepsTheBytesAfterIt() throws {
        let bytes = answer(["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
                            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Sec-WebSocket-Protocol: graphql-ws"],
                           extra: [0x81, 0x00])
        #expect(try client.parseResponse(Array(bytes.prefix(40))) == nil)
        let response = try #require(try client.parseResponse(bytes))
        #expect(response.subprotocol == "graphql-ws")
        #expect(response.remainder == [0x81, 0x00])
    }

    @Test(arguments: [
        ["HTTP/1.1 200 OK", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="],
        ["HTTP/1.1 101 Switching Protocols", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="],
        ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="],
        ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA="],
        ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
         "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Sec-WebSocket-Protocol: mqtt"],
        ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
         "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Sec-WebSocket-Extensions: permessage-deflate"],
    ])
    func refusesBadAnswers(lines: [String]) {
        #expect { try client.parseResponse(answer(lines)) } throws: { ($0 as? WebSocketError)?.kind == .badHandshakeResponse }
    }

    @Test func refusesAnEndlessHeader() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: WebSocketClientHandshake.maxResponseHeaderBytes + 1)
        #expect { try client.parseResponse(bytes) } throws: { ($0 as? WebSocketError)?.kind == .badHandshakeResponse }
    }
}
