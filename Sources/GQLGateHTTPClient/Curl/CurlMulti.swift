import CCurl
import CCurlShims
import GQLGateEventLoop

/// What a `CurlMulti` tells the owner of its easy handles.
protocol CurlMultiDelegate: AnyObject {
    /// The transfer on `easy` ended with `code`; it is still in the multi.
    func curlMulti(_ multi: CurlMulti, finished easy: UnsafeMutableRawPointer, code: CURLcode)
}

/// One libcurl multi handle driven by an `EventLoop`: curl's socket callback
/// registers its sockets in the loop's epoll, its timer callback arms a loop
/// timer, and each finished transfer is handed to the `delegate`, on the loop.
/// What runs on it (and its easy handles) is the delegate's: `CurlTransferPool`
/// for requests, `CurlByteStream` for one CONNECT_ONLY connection.
///
/// Its variables are `@exclusivity(unchecked)` for the same reason as
/// `CurlTransfer`'s: one thread, and no access overlaps another, so the
/// run-time check only costs.
final class CurlMulti {
    let loop: EventLoop
    /// The owner of the easy handles, held until `close()` or until it lets
    /// go (the two keep each other while the multi is in use).
    var delegate: (any CurlMultiDelegate)?
    private let multi: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var watchers: [Int32: CurlSocketWatcher] = [:]
    @exclusivity(unchecked) private var timer: EventLoopTimerID?
    @exclusivity(unchecked) private var kickPending = false
    /// Set by `close()`: a kick queued before it finds the handle gone.
    @exclusivity(unchecked) private var closed = false

    /// - Throws: `HTTPClientError` (`notReached`) when libcurl cannot allocate the handle.
    init(loop: EventLoop, maxConnections: Int) throws(HTTPClientError) {
        CurlGlobal.ensureInitialized()
        guard let multi = curl_multi_init() else {
            throw HTTPClientError(kind: .notReached, code: Int32(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_multi_init failed")
        }
        self.loop = loop
        self.multi = multi
        let me = Unmanaged.passUnretained(self).toOpaque()  // the multi outlives its handle: close() frees it
        gqlgate_curl_multi_setopt_socket_function(multi, curlSocketCallback)
        gqlgate_curl_multi_setopt_ptr(multi, CURLMOPT_SOCKETDATA, me)
        gqlgate_curl_multi_setopt_timer_function(multi, curlTimerCallback)
        gqlgate_curl_multi_setopt_ptr(multi, CURLMOPT_TIMERDATA, me)
        gqlgate_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxConnections)
        gqlgate_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, gqlgate_curl_pipe_multiplex)
    }

    /// A new easy handle with the options every handle on this multi has
    /// (no signals, `TCP_NODELAY`, sockets closed through this multi), or
    /// nil when libcurl cannot allocate one.
    func makeEasyHandle() -> UnsafeMutableRawPointer? {
        guard let easy = curl_easy_init() else { return nil }
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        gqlgate_curl_easy_setopt_closesocket_function(easy, curlCloseSocketCallback)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_CLOSESOCKETDATA, Unmanaged.passUnretained(self).toOpaque())
        return easy
    }

    /// Starts the transfer on `easy`; false when libcurl refused it.
    func add(_ easy: UnsafeMutableRawPointer) -> Bool {
        curl_multi_add_handle(multi, easy) == CURLM_OK
    }

    /// Takes `easy` out of the multi (its connection stays in the multi's cache).
    func remove(_ easy: UnsafeMutableRawPointer) {
        curl_multi_remove_handle(multi, easy)
    }

    /// Frees the multi handle, closing its connections; after it, no timer or
    /// socket watcher on the loop refers to this multi. Loop only; call once,
    /// after every easy handle was removed.
    func close() {
        closed = true
        delegate = nil
        if let timer { loop.cancel(timer) }
        timer = nil
        curl_multi_cleanup(multi)
        for fd in Array(watchers.keys) { dropIdle(fd) }
    }

    // MARK: - Driving libcurl from the loop

    func socketAction(_ fd: Int32, events: Int32) {
        var running: Int32 = 0
        curl_multi_socket_action(multi, fd, events, &running)
        var pending: Int32 = 0
        while let message = curl_multi_info_read(multi, &pending) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            delegate?.curlMulti(self, finished: easy, code: gqlgate_curl_msg_result(message))
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
        let watcher = watchers[fd] ?? CurlSocketWatcher(fd: fd, multi: self)
        watchers[fd] = watcher
        watcher.idle = false
        var events: UInt32 = 0
        if what & gqlgate_curl_poll_in != 0 { events |= EventLoop.readable }
        if what & gqlgate_curl_poll_out != 0 { events |= EventLoop.writable }
        loop.register(fd, events: events, handler: watcher)
    }

    /// An idle socket signalled (the upstream closed it, most likely): stop
    /// watching it; curl finds it dead when it next looks.
    func dropIdle(_ fd: Int32) {
        watchers.removeValue(forKey: fd)
        loop.unregister(fd)
    }

    /// curl closes a socket: forget it before its number can be reused.
    fileprivate func closeSocket(_ fd: Int32) {
        dropIdle(fd)
        Glibc.close(fd)
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
            let me = LoopBound(self, loop: loop)
            loop.execute {
                let multi = me.value
                multi.kickPending = false
                guard !multi.closed else { return }
                multi.socketAction(gqlgate_curl_socket_timeout, events: 0)
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

/// Loop-bound: created on any thread, then used only on `loop`'s thread.
@available(*, unavailable)
extension CurlMulti: Sendable {}

private let curlSocketCallback: gqlgate_curl_socket_cb = { _, fd, what, userp, _ in
    guard let userp else { return 0 }
    Unmanaged<CurlMulti>.fromOpaque(userp)._withUnsafeGuaranteedRef { $0.watch(fd, what: what) }
    return 0
}

private let curlCloseSocketCallback: curl_closesocket_callback = { clientp, fd in
    guard let clientp else { return Glibc.close(fd) }
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
