import CCurl
import CCurlShims
import GQLGateCore
import GQLGateEventLoop

/// One libcurl multi handle driven by an `EventLoop`: curl's socket callback
/// registers its sockets in the loop's epoll, its timer callback arms a loop
/// timer, and finished transfers resume their callers on the loop.
///
/// `@unchecked Sendable`: created on any thread, then used only on `loop`'s
/// thread (every entry point is called from a loop closure or loop task).
/// Its variables are `@exclusivity(unchecked)` for the same reason as
/// `CurlTransfer`'s: no access overlaps another, so the run-time check only costs.
final class CurlMulti: @unchecked Sendable {
    let loop: EventLoop
    private let multi: UnsafeMutableRawPointer
    private let proxies: ProxyEnvironment
    @exclusivity(unchecked) private var idleHandles: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) private var watchers: [Int32: SocketWatcher] = [:]
    @exclusivity(unchecked) private var timer: EventLoopTimerID?
    @exclusivity(unchecked) private var kickPending = false
    /// Easy handles of the transfers running, for `shutDown`.
    @exclusivity(unchecked) private var active = SlotTable<UnsafeMutableRawPointer>()
    /// Set only on a multi made for one CONNECT_ONLY connection (`CurlConnectionTransport`).
    @exclusivity(unchecked) private var connectOnly: CurlConnectionTransport?
    /// The URL most recently requested, parsed (nearly every request goes to the one upstream URL).
    @exclusivity(unchecked) private var lastURL: CurlParsedURL?
    /// Header lines of recent answers (by the line's bytes), shared by this multi's transfers.
    private let headerLines = RecentHeaderFields(capacity: 16, longestKey: 256)

    init(loop: EventLoop, maxConnections: Int, proxies: ProxyEnvironment = .process) {
        CurlGlobal.ensureInitialized()
        self.loop = loop
        self.proxies = proxies
        multi = curl_multi_init()
        let me = Unmanaged.passUnretained(self).toOpaque()  // the multi lives as long as the client
        gqlgate_curl_multi_setopt_socket_function(multi, curlSocketCallback)
        gqlgate_curl_multi_setopt_ptr(multi, CURLMOPT_SOCKETDATA, me)
        gqlgate_curl_multi_setopt_timer_function(multi, curlTimerCallback)
        gqlgate_curl_multi_setopt_ptr(multi, CURLMOPT_TIMERDATA, me)
        gqlgate_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxConnections)
        gqlgate_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, gqlgate_curl_pipe_multiplex)
    }

    // MARK: - Transfers

    /// Starts `transfer`; its caller waits on `continuation`, which is set here,
    /// on the loop, so a cancellation that arrived first resumes it at once.
    func start(_ transfer: CurlTransfer, resuming continuation: UnsafeContinuation<HTTPClientResponse, any Error>) {
        transfer.continuation = continuation
        guard !transfer.cancelled else {
            transfer.finish(.failure(HTTPClientError.cancelled))
            return
        }
        let easy = idleHandles.popLast() ?? makeHandle()
        transfer.easy = easy
        transfer.headerLines = headerLines
        configure(easy, for: transfer)
        let retained = Unmanaged.passRetained(transfer).toOpaque()  // released in complete(_:code:)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, retained)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, retained)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, retained)
        transfer.activeKey = active.insert { _ in easy }
        let added = curl_multi_add_handle(multi, easy)
        if added != CURLM_OK {
            complete(easy, code: CURLE_FAILED_INIT)
        }
    }

    /// Cancels `transfer`: in flight, it ends now; not started yet, `start` ends it.
    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelled = true
        guard let easy = transfer.easy else {  // not started, or over
            transfer.finish(.failure(HTTPClientError.cancelled))
            return
        }
        complete(easy, code: nil)
    }

    /// Ends every transfer (as cancelled), closes every connection and frees
    /// libcurl's handles; after it, nothing on the loop refers to this multi.
    /// Loop only; for a client that is going away.
    func shutDown() {
        for easy in active.removeAll() { complete(easy, code: nil) }
        if let timer { loop.cancel(timer) }
        timer = nil
        for easy in idleHandles {
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
        }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
        for fd in Array(watchers.keys) { dropIdle(fd) }
    }

    private func makeHandle() -> UnsafeMutableRawPointer {
        let easy = curl_easy_init()!
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, gqlgate_curl_http_version_2tls)
        gqlgate_curl_easy_setopt_write_function(easy, curlWriteCallback)
        gqlgate_curl_easy_setopt_header_function(easy, curlHeaderCallback)
        gqlgate_curl_easy_setopt_closesocket_function(easy, curlCloseSocketCallback)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_CLOSESOCKETDATA, Unmanaged.passUnretained(self).toOpaque())
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_NOPROXY, proxies.noProxy)
        if proxies.isSameForEveryURL { gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PROXY, proxies.http) }
        return easy
    }

    private func configure(_ easy: UnsafeMutableRawPointer, for transfer: CurlTransfer) {
        let request = transfer.request
        // curl copies the URL; withCString lends a native string's own bytes instead of a new array.
        _ = request.url.withCString { gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_URL, $0) }
        // With the parsed form beside the text, curl copies its parts instead of parsing again.
        let parsed = parsedURL(request.url)
        transfer.parsedURL = parsed
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_CURLU, parsed.map { UnsafeRawPointer($0.handle) })
        if !proxies.isSameForEveryURL { gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PROXY, proxies.proxy(for: request.url)) }
        switch request.method {
        case .get:
            gqlgate_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case .post:
            gqlgate_curl_easy_setopt_long(easy, CURLOPT_POST, 1)
            gqlgate_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_POSTFIELDS, UnsafeRawPointer(request.body.baseAddress ?? emptyBody))
        }
        let list = CurlHeaderList(first: "Expect:", headers: request.headers)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, list.head)
        transfer.headerList = consume list
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(1, request.timeout.milliseconds))
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, request.connectTimeout.milliseconds))
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
    }

    /// `url` parsed, from the last request's when it is the same text.
    private func parsedURL(_ url: String) -> CurlParsedURL? {
        if let lastURL, lastURL.text == url { return lastURL }
        guard let parsed = CurlParsedURL(url) else { return nil }
        lastURL = parsed
        return parsed
    }

    /// Ends a transfer: `code` nil means cancelled by the caller.
    private func complete(_ easy: UnsafeMutableRawPointer, code: CURLcode?) {
        var pointer: UnsafeMutableRawPointer?
        gqlgate_curl_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &pointer)
        curl_multi_remove_handle(multi, easy)
        guard let pointer else { return }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(pointer).takeRetainedValue()  // balances start(_:)
        if let key = transfer.activeKey { _ = active.remove(key) }
        let result = outcome(of: transfer, easy: easy, code: code)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, nil)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_CURLU, nil)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, nil)
        transfer.easy = nil
        transfer.activeKey = nil
        transfer.parsedURL = nil
        transfer.headerLines = nil
        idleHandles.append(easy)
        transfer.finish(result)
    }

    private func outcome(of transfer: CurlTransfer, easy: UnsafeMutableRawPointer, code: CURLcode?) -> Result<HTTPClientResponse, any Error> {
        guard let code else {
            return .failure(HTTPClientError.cancelled)
        }
        guard code == CURLE_OK else {
            var sent = 0
            gqlgate_curl_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &sent)
            let detail = String(cString: transfer.errorBuffer)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            let raw = Int32(bitPattern: code.rawValue)
            return .failure(HTTPClientError(kind: HTTPClientError.kind(forCurlCode: raw, requestBytesSent: sent), code: raw, message: message))
        }
        var status = 0
        gqlgate_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPClientResponse(status: status, headers: transfer.responseHeaders.headers(), body: transfer.body.take()))
    }

    // MARK: - CONNECT_ONLY connections

    /// Opens `connection` to `url` (`http://` or `https://`): DNS, proxy
    /// tunnel and TLS are libcurl's; nothing is sent. Call only on a multi made
    /// for this one connection: a CONNECT_ONLY connection waits in its multi's
    /// connection cache while in use, where a shared multi would close it
    /// (idle longer than `CURLOPT_MAXAGE_CONN`, or readable, when another
    /// transfer prunes the cache).
    func connect(_ connection: CurlConnectionTransport, url: String, timeout: Duration,
                 resuming continuation: UnsafeContinuation<Void, any Error>) {
        guard let easy = curl_easy_init() else {
            continuation.resume(throwing: HTTPClientError(kind: .notReached, code: Int32(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init failed"))
            return
        }
        connection.easy = easy
        connection.continuation = continuation
        connectOnly = connection
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1)
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))  // ALPN offers http/1.1 only
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_HTTPPROXYTUNNEL, 1)  // through an HTTP proxy, tunnel with CONNECT
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_URL, url)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PROXY, proxies.proxy(for: url))
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_NOPROXY, proxies.noProxy)
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, timeout.milliseconds))
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, connection.errorBuffer)
        gqlgate_curl_easy_setopt_closesocket_function(easy, curlCloseSocketCallback)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_CLOSESOCKETDATA, Unmanaged.passUnretained(self).toOpaque())
        if curl_multi_add_handle(multi, easy) != CURLM_OK {
            connected(connection, code: CURLE_FAILED_INIT)
        }
    }

    /// The connect finished: on success the handle stays in the multi (removing
    /// it would drop the connection) and its socket becomes the connection's.
    private func connected(_ connection: CurlConnectionTransport, code: CURLcode) {
        guard let continuation = connection.continuation else { return }
        connection.continuation = nil
        var socket: curl_socket_t = -1
        if code == CURLE_OK, let easy = connection.easy {
            gqlgate_curl_easy_getinfo_socket(easy, &socket)
        }
        guard code == CURLE_OK, socket >= 0 else {
            let detail = String(cString: connection.errorBuffer)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            let raw = Int32(bitPattern: code.rawValue)
            disconnect(connection)
            continuation.resume(throwing: HTTPClientError(kind: HTTPClientError.kind(forCurlCode: raw, requestBytesSent: 0), code: raw, message: message))
            return
        }
        connection.fileDescriptor = socket
        continuation.resume()
    }

    /// Closes `connection` and this multi with it; the multi is freed one loop
    /// turn later, after any curl work already queued for it.
    func disconnect(_ connection: CurlConnectionTransport) {
        guard let easy = connection.easy else { return }
        connection.easy = nil
        connectOnly = nil
        curl_multi_remove_handle(multi, easy)
        curl_easy_cleanup(easy)
        loop.execute { [self] in
            if let timer { loop.cancel(timer) }
            timer = nil
            curl_multi_cleanup(multi)
        }
    }

    // MARK: - Driving libcurl from the loop

    func socketAction(_ fd: Int32, events: Int32) {
        var running: Int32 = 0
        curl_multi_socket_action(multi, fd, events, &running)
        var pending: Int32 = 0
        while let message = curl_multi_info_read(multi, &pending) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            if let connectOnly, connectOnly.easy == easy {
                connected(connectOnly, code: gqlgate_curl_msg_result(message))
                continue
            }
            complete(easy, code: gqlgate_curl_msg_result(message))
        }
    }

    /// curl's socket callback. A kept-alive connection is "removed" after
    /// every transfer and added back for the next: its socket stays in epoll
    /// while idle (no system call either way) and is dropped only if it
    /// signals while idle, or when curl closes it.
    fileprivate func watch(_ fd: Int32, what: Int32) {
        if what == gqlgate_curl_poll_remove {
            watchers[fd]?.idle = true
            return
        }
        let watcher = watchers[fd] ?? SocketWatcher(fd: fd, multi: self)
        watchers[fd] = watcher
        watcher.idle = false
        var events: UInt32 = 0
        if what & gqlgate_curl_poll_in != 0 { events |= EventLoop.readable }
        if what & gqlgate_curl_poll_out != 0 { events |= EventLoop.writable }
        loop.register(fd, events: events, handler: watcher)
    }

    /// An idle socket signalled (the upstream closed it, most likely): stop
    /// watching it; curl finds it dead when it next looks.
    fileprivate func dropIdle(_ fd: Int32) {
        watchers.removeValue(forKey: fd)
        loop.unregister(fd)
    }

    /// curl closes a socket: forget it before its number can be reused.
    fileprivate func closeSocket(_ fd: Int32) {
        dropIdle(fd)
        close(fd)
    }

    /// curl's timer callback: -1 stops the timer; 0 means "act now", run as
    /// loop work before the next `epoll_wait` (once, however often curl asks);
    /// anything else arms a loop timer.
    fileprivate func armTimer(milliseconds: Int) {
        if let timer { loop.cancel(timer) }
        timer = nil
        if milliseconds == 0 {
            guard !kickPending else { return }
            kickPending = true
            loop.execute { [unowned self] in
                self.kickPending = false
                self.socketAction(gqlgate_curl_socket_timeout, events: 0)
            }
            return
        }
        guard milliseconds > 0 else { return }
        timer = loop.schedule(after: .milliseconds(milliseconds)) { [unowned self] in
            self.timer = nil
            self.socketAction(gqlgate_curl_socket_timeout, events: 0)
        }
    }
}

/// What `CURLOPT_POSTFIELDS` points at for an empty body (NULL would make curl
/// read the body from a callback). Never written.
nonisolated(unsafe) private let emptyBody = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

/// Forwards epoll readiness of one curl socket to `curl_multi_socket_action`.
private final class SocketWatcher: FileDescriptorHandler {
    let fd: Int32
    unowned let multi: CurlMulti
    /// curl has no transfer on this socket (a kept-alive connection between requests).
    var idle = false

    init(fd: Int32, multi: CurlMulti) {
        self.fd = fd
        self.multi = multi
    }

    func handleEvents(_ events: UInt32) {
        if idle {
            multi.dropIdle(fd)
            return
        }
        var flags: Int32 = 0
        if events & EventLoop.readable != 0 { flags |= gqlgate_curl_csel_in }
        if events & EventLoop.writable != 0 { flags |= gqlgate_curl_csel_out }
        if events & (EventLoop.error | EventLoop.hangUp) != 0 { flags |= gqlgate_curl_csel_err }
        multi.socketAction(fd, events: flags)
    }
}

private let curlSocketCallback: gqlgate_curl_socket_cb = { _, fd, what, userp, _ in
    guard let userp else { return 0 }
    Unmanaged<CurlMulti>.fromOpaque(userp)._withUnsafeGuaranteedRef { $0.watch(fd, what: what) }
    return 0
}

private let curlCloseSocketCallback: curl_closesocket_callback = { clientp, fd in
    guard let clientp else { return close(fd) }
    Unmanaged<CurlMulti>.fromOpaque(clientp).takeUnretainedValue().closeSocket(fd)
    return 0
}

private let curlTimerCallback: gqlgate_curl_timer_cb = { _, milliseconds, userp in
    guard let userp else { return 0 }
    Unmanaged<CurlMulti>.fromOpaque(userp)._withUnsafeGuaranteedRef { $0.armTimer(milliseconds: milliseconds) }
    return 0
}

#if canImport(Glibc)
import Glibc
#endif
