import CLinuxShims
import CMicroHTTPD
import CMicroHTTPDShims
@_spi(GQLGateInternals) import GQLGateCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What libmicrohttpd does not watch itself, on a thread of its own:
/// - a request's header block and body late past their deadlines
///   (`ConnectionDeadlines`), swept once a second: such a connection gets a
///   408 when it speaks plain HTTP, and is closed; so is, without a 408, one
///   whose client closed it before its request was in, when libmicrohttpd missed that;
/// - clients that closed a streamed answer's connection while it waits,
///   suspended, for its next write (libmicrohttpd does not poll a suspended
///   connection): their `StreamingBody` ends at once;
/// - the connection limit: a connection past it is closed as it is accepted;
///   upgraded sockets the gateway took over from libmicrohttpd (`UpgradedSocket`) count.
///
/// `@unchecked Sendable`: the state is behind a `Lock`; the descriptors are
/// set in `init` and closed in `deinit`, after the thread ended.
final class ConnectionWatch: @unchecked Sendable {
    private struct State {
        var deadlines: ConnectionDeadlines
        var streams: [UInt64: StreamingBody] = [:]
        var tokens: UInt64 = 0
    }

    /// Most connections open at once; 0: no limit of its own.
    let connectionLimit: Int
    /// Whether connections speak TLS, where no 408 can be written under the library.
    private let tls: Bool
    private let state: Lock<State>
    private let epollFD: Int32
    private let wakeFD: Int32
    private let stopping = Atomic<Bool>(false)
    /// Upgraded sockets taken over from libmicrohttpd and not closed yet.
    private let takenOver = Atomic<Int>(0)

    /// How often the deadlines are swept.
    static let sweepInterval: UInt64 = 1_000_000_000

    init(headerTimeoutSeconds: Int, bodyTimeoutSeconds: Int, connectionLimit: Int, tls: Bool) {
        let deadlines = ConnectionDeadlines(
            headerTimeout: UInt64(max(0, headerTimeoutSeconds)) * 1_000_000_000, bodyTimeout: UInt64(max(0, bodyTimeoutSeconds)) * 1_000_000_000)
        state = Lock(State(deadlines: deadlines))
        self.connectionLimit = connectionLimit
        self.tls = tls
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(epollFD >= 0 && wakeFD >= 0, "cannot create epoll/eventfd: errno \(errno)")
        var event = epoll_event()
        event.events = gqlgate_epollin
        event.data.u64 = 0  // tokens start at 1
        epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    /// Starts the thread; it keeps the watch until `stop()`.
    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()  // released by the thread's start routine
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { argument in
            Unmanaged<ConnectionWatch>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, box)
        precondition(rc == 0, "cannot start the connection watch thread: \(rc)")
        pthread_detach(thread)
    }

    /// Ends the thread.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: - Told by the server threads

    /// Whether a new connection may come in (`connectionLimit`).
    func admitsConnection() -> Bool {
        connectionLimit <= 0 || state.withLock { $0.deadlines.count } + takenOver.load(ordering: .relaxed) < connectionLimit
    }

    /// An upgraded socket was taken over from libmicrohttpd (server thread).
    func tookOver() {
        takenOver.add(1, ordering: .relaxed)
    }

    /// A socket taken over was closed (any thread).
    func releasedTakenOver() {
        takenOver.subtract(1, ordering: .relaxed)
    }

    func opened(_ connection: OpaquePointer, at now: UInt64) {
        let fd = gqlgate_mhd_connection_fd(connection)
        state.withLock { $0.deadlines.opened(Self.key(connection), fileDescriptor: fd, at: now) }
    }

    func closed(_ connection: OpaquePointer) {
        state.withLock { $0.deadlines.closed(Self.key(connection)) }
    }

    func headerArrived(_ connection: OpaquePointer, at now: UInt64) {
        state.withLock { $0.deadlines.headerArrived(Self.key(connection), at: now) }
    }

    func answering(_ connection: OpaquePointer) {
        state.withLock { $0.deadlines.answering(Self.key(connection)) }
    }

    func answered(_ connection: OpaquePointer, at now: UInt64) {
        state.withLock { $0.deadlines.answered(Self.key(connection), at: now) }
    }

    /// Watches `socket`, which `body` is streamed on, for the client closing
    /// it; returns the token to stop with. Call before libmicrohttpd can close it.
    func watchClose(of socket: Int32, for body: StreamingBody) -> UInt64 {
        let token = state.withLock { state in
            state.tokens &+= 1
            state.streams[state.tokens] = body
            return state.tokens
        }
        var event = epoll_event()
        event.events = gqlgate_epollrdhup | gqlgate_epolloneshot  // errors and hang-ups come unasked
        event.data.u64 = token
        if epoll_ctl(epollFD, EPOLL_CTL_ADD, socket, &event) != 0 {
            _ = state.withLock { $0.streams.removeValue(forKey: token) }
            return 0
        }
        return token
    }

    /// Stops watching `socket` (token from `watchClose`); before libmicrohttpd closes it.
    func unwatchClose(of socket: Int32, token: UInt64) {
        guard token != 0 else { return }
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, socket, nil)
        _ = state.withLock { $0.streams.removeValue(forKey: token) }
    }

    // MARK: - The thread

    private func run() {
        gqlgate_set_thread_name("gqlgate-conns")
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        var nextSweep = GatewayClock.system.monotonicNanoseconds() + Self.sweepInterval
        while !stopping.load(ordering: .relaxed) {
            let now = GatewayClock.system.monotonicNanoseconds()
            if now >= nextSweep {
                sweep(at: now)
                nextSweep = now + Self.sweepInterval
            }
            let timeout = Int32(clamping: (nextSweep - min(now, nextSweep)) / 1_000_000 + 1)
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeout) }
            for event in events.prefix(Int(max(0, count))) where event.data.u64 != 0 {
                let body = state.withLock { $0.streams.removeValue(forKey: event.data.u64) }
                body?.clientClosed()
            }
        }
    }

    /// Reads the sockets of connections waiting for or receiving a request
    /// (a request begun, a client gone), then closes those past their deadlines.
    private func sweep(at now: UInt64) {
        let probes = state.withLock { $0.deadlines.probes() }
        // Read without the lock: a descriptor closed meanwhile (or reused) gives
        // a reading the deadlines ignore, as the probe's connection is gone.
        let readings = probes.compactMap { probe -> (probe: ConnectionDeadlines.Probe, receivedAt: UInt64, peerClosed: Bool)? in
            var milliseconds: UInt32 = 0
            var peerClosed: Int32 = 0
            guard gqlgate_socket_receipt(probe.fileDescriptor, &milliseconds, &peerClosed) == 0 else { return nil }
            let ago = UInt64(milliseconds) * 1_000_000
            return (probe, ago < now ? now - ago : 0, peerClosed != 0)
        }
        state.withLock { state in
            // Under the lock: libmicrohttpd closes a descriptor only after `closed`.
            for reading in readings {
                if let end = state.deadlines.probed(reading.probe, receivedAt: reading.receivedAt, peerClosed: reading.peerClosed) {
                    shut(end)
                }
            }
            for late in state.deadlines.overdue(at: now) { shut(late) }
        }
    }

    /// A late request gets 408 (nothing of an answer was sent: the request
    /// is not in), unless under TLS; then the socket is shut, and
    /// libmicrohttpd, seeing its end, closes it.
    private func shut(_ end: ConnectionDeadlines.End) {
        if !tls, end.reason != .clientClosed {
            Self.requestTimeout.withUnsafeBytes { bytes in
                _ = send(end.fileDescriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
        }
        _ = shutdown(end.fileDescriptor, Int32(SHUT_RDWR))
    }

    private static let requestTimeout: [UInt8] = {
        let body = "The request did not arrive in time."
        return Array(("HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body).utf8)
    }()

    private static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }
}

/// libmicrohttpd's connection notification: tells the server's watch.
let connectionNotify: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls)._withUnsafeGuaranteedRef { server in
        if code == .CONNECTION_NOTIFY_STARTED {
            server.watch.opened(connection, at: GatewayClock.system.monotonicNanoseconds())
        } else {
            server.watch.closed(connection)
        }
    }
}

/// libmicrohttpd's accept policy: a connection past the limit is closed at
/// once (libmicrohttpd's own limit would leave it waiting in the listen queue).
let acceptPolicy: MHD_AcceptPolicyCallback = { cls, _, _ in
    guard let cls else { return .NO }
    return Unmanaged<HTTPServer>.fromOpaque(cls)._withUnsafeGuaranteedRef { $0.watch.admitsConnection() } ? .YES : .NO
}
