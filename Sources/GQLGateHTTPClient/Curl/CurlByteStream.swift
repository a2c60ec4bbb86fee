import CCurl
import CCurlShims
package import GQLGateEventLoop

/// A connection libcurl opened with `CURLOPT_CONNECT_ONLY` (so DNS, proxies
/// and TLS for `https`/`wss` stay libcurl's), read and written with
/// `curl_easy_recv`/`curl_easy_send`, as a `ByteStream`. Its handle
/// stays in a multi of its own, on the loop, for as long as it is open: a
/// CONNECT_ONLY connection waits in its multi's connection cache while in
/// use, where a shared multi would close it (idle longer than
/// `CURLOPT_MAXAGE_CONN`, or readable, when another transfer prunes the cache).
package final class CurlByteStream: ByteStream, CurlMultiDelegate {
    /// The socket libcurl connected (`CURLINFO_ACTIVESOCKET`); -1 before.
    package private(set) var fileDescriptor: Int32 = -1
    private let multi: CurlMulti
    private var easy: UnsafeMutableRawPointer?
    private var continuation: UnsafeContinuation<Void, any Error>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    private init(multi: CurlMulti) {
        self.multi = multi
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        multi.delegate = self
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// Connects to `url` (`http://` or `https://`) on `loop`: DNS, proxy
    /// tunnel and TLS are libcurl's; nothing is sent. Call from a task running on `loop`.
    /// - Throws: `HTTPClientError` when libcurl cannot connect.
    package static func connect(url: String, loop: EventLoop, timeout: Duration) async throws -> CurlByteStream {
        assert(loop.inLoop)
        let stream = CurlByteStream(multi: try CurlMulti(loop: loop, maxConnections: 1))
        try await withUnsafeThrowingContinuation { continuation in
            stream.start(url: url, timeout: timeout, resuming: continuation)
        }
        return stream
    }

    private func start(url: String, timeout: Duration, resuming continuation: UnsafeContinuation<Void, any Error>) {
        guard let easy = multi.makeEasyHandle() else {
            multi.close()
            continuation.resume(throwing: CurlTransferPool.noEasyHandle)
            return
        }
        self.easy = easy
        self.continuation = continuation
        let proxies = ProxyEnvironment.process
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1)
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))  // ALPN offers http/1.1 only
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_HTTPPROXYTUNNEL, 1)  // through an HTTP proxy, tunnel with CONNECT
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_URL, url)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PROXY, proxies.proxy(for: url))
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_NOPROXY, proxies.noProxy)
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, timeout.milliseconds))
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        if !multi.add(easy) {
            connected(code: CURLE_FAILED_INIT)
        }
    }

    func curlMulti(_ multi: CurlMulti, finished easy: UnsafeMutableRawPointer, code: CURLcode) {
        if easy == self.easy { connected(code: code) }
    }

    /// The connect finished: on success the handle stays in the multi (removing
    /// it would drop the connection) and its socket becomes the connection's.
    private func connected(code: CURLcode) {
        guard let continuation else { return }
        self.continuation = nil
        var socket: curl_socket_t = -1
        if code == CURLE_OK, let easy {
            gqlgate_curl_easy_getinfo_socket(easy, &socket)
        }
        guard code == CURLE_OK, socket >= 0 else {
            let failure = HTTPClientError(curlCode: code, errorBuffer: errorBuffer, requestBytesSent: 0)
            close()
            continuation.resume(throwing: failure)
            return
        }
        fileDescriptor = socket
        continuation.resume()
    }

    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> ByteStreamResult {
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
    package func send(_ bytes: UnsafeRawBufferPointer, more: Bool) -> ByteStreamResult {
        guard let easy else { return .failed(Int32(CURLE_UNSUPPORTED_PROTOCOL.rawValue)) }
        var count = 0
        let code = curl_easy_send(easy, bytes.baseAddress, bytes.count, &count)
        switch code {
        case CURLE_OK: return count > 0 ? .transferred(count) : .wouldBlock
        case CURLE_AGAIN: return .wouldBlock
        default: return .failed(Int32(bitPattern: code.rawValue))
        }
    }

    /// Removes the handle from its multi, which closes the connection; the
    /// multi is freed one loop turn later, after any curl work already queued for it.
    package func close() {
        guard let easy else { return }
        self.easy = nil
        multi.remove(easy)
        curl_easy_cleanup(easy)
        multi.delegate = nil
        let multi = LoopBound(multi, loop: multi.loop)
        multi.loop.execute { multi.value.close() }
    }
}

/// Loop-bound: made by `connect` on its loop and used only there (the
/// `WebSocketConnection` over it asserts so).
@available(*, unavailable)
extension CurlByteStream: Sendable {}
