package import GQLGateCore

/// The server side of RFC 6455's opening handshake (§4.2): checks a client's
/// upgrade request, computes `Sec-WebSocket-Accept` and picks a subprotocol.
package enum WebSocketHandshake {
    /// The only protocol version there is.
    package static let version = "13"
    /// The GUID RFC 6455 appends to the key before hashing.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `base64(SHA-1(key + GUID))`, the value a server answers `key` with.
    package static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.hash(data: Array((key + guid).utf8)))
    }

    /// Checks an upgrade request and returns what to answer it with.
    ///
    /// - Parameters:
    ///   - method: the request method; must be `GET`.
    ///   - headers: the request's header fields.
    ///   - supportedSubprotocols: the subprotocols this server speaks, most
    ///     preferred first; the first one the client also offered is chosen.
    /// - Returns: the `101` answer's header fields and the chosen subprotocol
    ///   (nil when the client offered none this server speaks).
    /// - Throws: `WebSocketError` with `.badUpgradeRequest` (answer 400) or
    ///   `.unsupportedVersion` (answer 426); its `httpStatus` and
    ///   `responseHeaders` say how.
    package static func acceptUpgrade(method: String, headers: HTTPHeaders,
                                     supportedSubprotocols: [String]) throws(WebSocketError) -> WebSocketUpgradeAcceptance {
        guard method == "GET" else {
            throw WebSocketError(.badUpgradeRequest, "a WebSocket upgrade must use GET, not \(method)")
        }
        guard asksForWebSocket(headers) else {
            throw WebSocketError(.badUpgradeRequest, "the request has no 'Upgrade: websocket'")
        }
        guard headers.values(for: "connection").flatMap(tokens).contains(where: { $0.equalsIgnoringASCIICase("upgrade") }) else {
            throw WebSocketError(.badUpgradeRequest, "the request's Connection header does not contain 'upgrade'")
        }
        guard headers["sec-websocket-version"].map({ String($0.trimmingASCIISpaces()) }) == version else {
            throw WebSocketError(.unsupportedVersion, "only WebSocket version 13 is supported")
        }
        guard let key = headers["sec-websocket-key"].map({ String($0.trimmingASCIISpaces()) }),
              Base64.decode(key)?.count == 16 else {
            throw WebSocketError(.badUpgradeRequest, "Sec-WebSocket-Key must be the base64 of 16 bytes")
        }
        let offered = headers.values(for: "sec-websocket-protocol").flatMap(tokens)
        let chosen = supportedSubprotocols.first { offered.contains($0) }
        var response: HTTPHeaders = ["Upgrade": "websocket", "Sec-WebSocket-Accept": acceptValue(forKey: key)]
        if let chosen { response.add(name: "Sec-WebSocket-Protocol", value: chosen) }
        return WebSocketUpgradeAcceptance(subprotocol: chosen, responseHeaders: response)
    }

    /// Whether the request's `Upgrade` field names `websocket`.
    package static func asksForWebSocket(_ headers: HTTPHeaders) -> Bool {
        headers["upgrade"].map { tokens($0).contains { $0.equalsIgnoringASCIICase("websocket") } } == true
    }

    /// The comma-separated tokens of a header value, trimmed, empty ones dropped.
    static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { String($0.trimmingASCIISpaces()) }.filter { !$0.isEmpty }
    }
}

/// A valid upgrade request's answer: send status 101 with `responseHeaders`
/// (libmicrohttpd adds `Connection: Upgrade` itself).
package struct WebSocketUpgradeAcceptance: Sendable {
    /// The subprotocol both sides speak, or nil.
    package let subprotocol: String?
    /// `Upgrade`, `Sec-WebSocket-Accept` and, with a subprotocol, `Sec-WebSocket-Protocol`.
    package let responseHeaders: HTTPHeaders
}
