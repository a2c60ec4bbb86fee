package import GQLGateCore

/// The client side of RFC 6455's opening handshake (§4.1): the upgrade request
/// with a fresh random key, and the checks on the server's `101` answer.
package struct WebSocketClientHandshake: Sendable {
    /// The most header bytes accepted before the answer counts as malformed.
    package static let maxResponseHeaderBytes = 16 * 1024

    /// `Sec-WebSocket-Key`: base64 of 16 random bytes.
    package let key: String
    /// The subprotocols offered, most preferred first.
    package let subprotocols: [String]

    /// A handshake with a fresh random key.
    package init(subprotocols: [String] = []) {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.init(key: Base64.encode(nonce), subprotocols: subprotocols)
    }

    /// A handshake with a given key.
    init(key: String, subprotocols: [String]) {
        self.key = key
        self.subprotocols = subprotocols
    }

    /// The HTTP/1.1 upgrade request. Fields in `headers` that the handshake
    /// owns (Host, Upgrade, Connection, Sec-WebSocket-*) or that hold CR/LF are left out.
    package func request(host: String, path: String, headers: HTTPHeaders = HTTPHeaders()) -> [UInt8] {
        var text = "GET \(path.isEmpty ? "/" : path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: \(WebSocketHandshake.version)\r\n"
        if !subprotocols.isEmpty {
            text += "Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))\r\n"
        }
        for field in headers where !Self.isHandshakeOwned(field.name) && !Self.hasLineBreak(field) {
            text += "\(field.name): \(field.value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Checks the server's answer read so far.
    ///
    /// - Returns: nil while the header is incomplete; otherwise the outcome,
    ///   with any bytes read past the header (the first WebSocket frames).
    /// - Throws: `WebSocketError(.badHandshakeResponse)` for a status other
    ///   than 101, a missing `Upgrade`/`Connection`, a wrong
    ///   `Sec-WebSocket-Accept`, a subprotocol not offered, any extension, or a
    ///   header over `maxResponseHeaderBytes`.
    package func parseResponse(_ bytes: [UInt8]) throws(WebSocketError) -> WebSocketHandshakeResponse? {
        guard let end = Self.headerEnd(bytes) else {
            guard bytes.count <= Self.maxResponseHeaderBytes else {
                throw WebSocketError(.badHandshakeResponse, "the handshake answer's header is over \(Self.maxResponseHeaderBytes) bytes")
            }
            return nil
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), statusParts[1] == "101" else {
            throw WebSocketError(.badHandshakeResponse, "the server answered '\(lines.first ?? "")' instead of 101 Switching Protocols")
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw WebSocketError(.badHandshakeResponse, "malformed header line in the handshake answer")
            }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...].trimmingASCIISpaces()))
        }
        try check(headers)
        let subprotocol = headers["sec-websocket-protocol"]
        return WebSocketHandshakeResponse(subprotocol: subprotocol, headers: headers, remainder: Array(bytes[(end + 4)...]))
    }

    private func check(_ headers: HTTPHeaders) throws(WebSocketError) {
        guard headers["upgrade"].map({ WebSocketHandshake.tokens($0).contains { $0.equalsIgnoringASCIICase("websocket") } }) == true else {
            throw WebSocketError(.badHandshakeResponse, "the handshake answer has no 'Upgrade: websocket'")
        }
        guard headers.values(for: "connection").flatMap(WebSocketHandshake.tokens).contains(where: { $0.equalsIgnoringASCIICase("upgrade") }) else {
            throw WebSocketError(.badHandshakeResponse, "the handshake answer's Connection header does not contain 'upgrade'")
        }
        guard headers["sec-websocket-accept"] == WebSocketHandshake.acceptValue(forKey: key) else {
            throw WebSocketError(.badHandshakeResponse, "Sec-WebSocket-Accept does not match the key sent")
        }
        let chosen = headers.values(for: "sec-websocket-protocol")
        guard chosen.count <= 1, chosen.allSatisfy({ subprotocols.contains($0) }) else {
            throw WebSocketError(.badHandshakeResponse, "the server chose a subprotocol that was not offered: \(chosen.joined(separator: ", "))")
        }
        guard !headers.contains("sec-websocket-extensions") else {
            throw WebSocketError(.badHandshakeResponse, "the server chose an extension that was not offered")
        }
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func isHandshakeOwned(_ name: String) -> Bool {
        ["host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol",
         "sec-websocket-extensions"].contains { name.equalsIgnoringASCIICase($0) }
    }

    private static func hasLineBreak(_ field: HTTPHeaders.Field) -> Bool {
        (field.name + field.value).utf8.contains { $0 == 13 || $0 == 10 }
    }
}

/// A server's valid `101` answer.
package struct WebSocketHandshakeResponse: Sendable {
    /// The subprotocol the server chose (one that was offered), or nil.
    package let subprotocol: String?
    /// The answer's header fields.
    package let headers: HTTPHeaders
    /// Bytes read past the header: the start of the WebSocket stream, to be fed to the connection first.
    package let remainder: [UInt8]
}
