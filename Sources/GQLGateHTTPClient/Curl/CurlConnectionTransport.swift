import CCurl
import CCurlShims
import GQLGateEventLoop
import GQLGateWebSocket

/// A connection libcurl opened with `CURLOPT_CONNECT_ONLY` (so DNS, proxies
/// and TLS for `https`/`wss` stay libcurl's), read and written with
/// `curl_easy_recv`/`curl_easy_send`, as a `WebSocketTransport`. Its handle
/// stays in a multi of its own, on the loop, for as long as it is open.
///
/// `@unchecked Sendable`: created by `connect` and then used only on its
/// loop's thread (the connection that wraps it asserts so).
public final class CurlConnectionTransport: WebSocketTransport, @unchecked Sendable {
    /// The socket libcurl connected (`CURLINFO_ACTIVESOCKET`); -1 before.
    public internal(set) var fileDescriptor: Int32 = -1
    let multi: CurlMulti
    var easy: UnsafeMutableRawPointer?
    var continuation: UnsafeContinuation<Void, any Error>?
    let errorBuffer: UnsafeMutablePointer<CChar>

    private init(multi: CurlMulti) {
        self.multi = multi
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// Connects to `url` (`http://` or `https://`) on `loop`. Call from a task running on `loop`.
    /// - Throws: `HTTPClientError` when libcurl cannot connect.
    public static func connect(url: String, loop: EventLoop, timeout: Duration) async throws -> CurlConnectionTransport {
        assert(loop.inLoop)
        let transport = CurlConnectionTransport(multi: CurlMulti(loop: loop, maxConnections: 1))
        try await withUnsafeThrowingContinuation { continuation in
            transport.multi.connect(transport, url: url, timeout: timeout, resuming: continuation)
        }
        return transport
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> WebSocketTransportResult {
        guard let easy else { return .failed(Int32(CURLE_UNSUPPORTED_PROTOCOL.rawValue)) }
        var count = 0
        let code = curl_easy_recv(easy, buffer.baseAddress, buffer.count, &count)
        switch code {
        case CURLE_OK: return count > 0 ? .transferred(count) : .endOfStream
        case CURLE_AGAIN: return .wouldBlock
        default: return .failed(Int32(bitPattern: code.rawValue))
        }
    }

    /// `more` cannot reach libcurl; the socket has `TCP_NODELAY` set.
    public func send(_ bytes: UnsafeRawBufferPointer, more: Bool) -> WebSocketTransportResult {
        guard let easy else { return .failed(Int32(CURLE_UNSUPPORTED_PROTOCOL.rawValue)) }
        var count = 0
        let code = curl_easy_send(easy, bytes.baseAddress, bytes.count, &count)
        switch code {
        case CURLE_OK: return count > 0 ? .transferred(count) : .wouldBlock
        case CURLE_AGAIN: return .wouldBlock
        default: return .failed(Int32(bitPattern: code.rawValue))
        }
    }

    /// Removes the handle from its multi, which closes the connection.
    public func close() {
        multi.disconnect(self)
    }
}
