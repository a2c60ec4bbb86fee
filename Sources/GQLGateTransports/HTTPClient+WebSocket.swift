package import GQLGateCore
import GQLGateEventLoop
package import GQLGateHTTPClient
package import GQLGateWebSocket

extension HTTPClient {
    /// Opens a WebSocket to the upstream: libcurl connects (`ws://` as
    /// `http://`, `wss://` as `https://`, proxies and TLS included), then
    /// gqlgate sends its own upgrade request and checks `Sec-WebSocket-Accept`
    /// and the chosen subprotocol.
    ///
    /// The connection runs on the caller's loop (or the next one) and comes
    /// back not started: set its delegate and call `start()` on `connection.loop`.
    ///
    /// - Parameters:
    ///   - url: `ws://` or `wss://` URL.
    ///   - subprotocols: offered, most preferred first.
    ///   - headers: extra request header fields (credentials, ...).
    /// - Throws: `HTTPClientError` when the connection cannot be made,
    ///   `WebSocketError` when the handshake fails.
    package func openWebSocket(url: String, subprotocols: [String] = [], headers: HTTPHeaders = HTTPHeaders(),
                              configuration: WebSocketConfiguration = WebSocketConfiguration(),
                              connectTimeout: Duration = .seconds(2), handshakeTimeout: Duration = .seconds(10)) async throws -> WebSocketConnection {
        guard let target = WebSocketURL(url) else {
            throw WebSocketError(.invalidURL, "'\(url)' is not a ws:// or wss:// URL")
        }
        let loop = EventLoop.current ?? group.next()
        return try await withTaskExecutorPreference(loop) {
            let transport = try await CurlByteStream.connect(url: target.curlURL, loop: loop, timeout: connectTimeout)
            do {
                let response = try await WebSocketClientUpgrade.perform(
                    over: transport, loop: loop, handshake: WebSocketClientHandshake(subprotocols: subprotocols),
                    host: target.host, target: target.requestTarget, headers: headers, timeout: handshakeTimeout)
                return WebSocketConnection(role: .client, transport: transport, loop: loop, configuration: configuration,
                                           subprotocol: response.subprotocol, initialBytes: response.remainder)
            } catch {
                transport.close()
                throw error
            }
        }
    }
}

/// A `ws://` or `wss://` URL taken apart for libcurl and the upgrade request.
struct WebSocketURL: Equatable {
    /// The same URL with `http`/`https`, for libcurl.
    let curlURL: String
    /// `Host` header: the authority without user information.
    let host: String
    /// Path and query, at least `/`.
    let requestTarget: String

    init?(_ url: String) {
        let scheme: String
        if url.lowercased().hasPrefix("ws://") {
            scheme = "http"
        } else if url.lowercased().hasPrefix("wss://") {
            scheme = "https"
        } else {
            return nil
        }
        let rest = url[url.index(after: url.firstIndex(of: ":")!)...].dropFirst(2)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        guard !host.isEmpty else { return nil }
        var target = String(rest[authorityEnd...].prefix { $0 != "#" })
        if !target.hasPrefix("/") { target = "/" + target }
        curlURL = scheme + "://" + authority
        self.host = host
        requestTarget = target
    }
}
