import CMicroHTTPDShims
import CMicroHTTPD
import GQLGateCore
import Synchronization

/// What a delegate does with a request it received whole: answers it at once,
/// or takes it. Not generic: the server's access handler is not specialised
/// for a delegate in another module, and a generic answer went through its
/// type's metadata (about 0.5k instructions a request).
package enum ServerAnswer {
    /// Send this answer now, on the server thread.
    case now(ServerResponse)
    /// The server suspends the connection, then calls `dispatch` on the same
    /// server thread (with what the delegate worked out about the request).
    /// It must see that `request.respond(_:)` is called exactly once, from any thread.
    case later(dispatch: () -> Void)
}

/// Decides what to do with each request the server has fully received.
package protocol HTTPServerDelegate: AnyObject, Sendable {
    /// Called on a server thread once the whole body is in: the answer to
    /// send at once, or `.later` to take the request.
    func answer(_ request: ServerRequest) -> ServerAnswer
    /// The answer to a body over `maxBodyBytes`: sent before the body is read
    /// when its length is declared, else once the rest was read and dropped;
    /// the connection closes after it.
    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse
    /// The answer to a request on a TLS connection whose client presented no
    /// certificate, or one the client CAs did not sign
    /// (`TLSCredentialStore.requiresClientCertificates`): sent before the body
    /// is read, then the connection closes; nil lets the request in (without
    /// `clientCertificateSubject`). By default a plain-text 401.
    func refuseClientCertificate(_ request: ServerRequest) -> ServerResponse?
    /// The answer to a request the server refuses before reading its body, with
    /// `refusal.status`: its body framing (RFC 9112 §6.3), or a header block that
    /// leaves too little memory for the answer's; then the connection closes.
    /// By default a plain-text answer.
    func refuseFraming(_ request: ServerRequest, _ refusal: FramingRefusal) -> ServerResponse
    /// Told when the answer's header fields named `names` were left out: with
    /// the request's header block they did not fit in the connection's memory
    /// (`connectionMemoryBytes`). By default nothing is done.
    func droppedAnswerFields(_ request: ServerRequest, names: [String])
}

extension HTTPServerDelegate {
    package func refuseFraming(_ request: ServerRequest, _ refusal: FramingRefusal) -> ServerResponse {
        let text = switch refusal {
        case .invalidContentLength: "Invalid Content-Length."
        case .unsupportedTransferCoding: "Unsupported Transfer-Encoding."
        case .headerFieldsTooLarge: "Request header fields too large."
        }
        return ServerResponse(status: refusal.status, headers: ["Content-Type": "text/plain"], body: Bytes(text))
    }

    package func droppedAnswerFields(_ request: ServerRequest, names: [String]) {}

    package func refuseClientCertificate(_ request: ServerRequest) -> ServerResponse? {
        ServerResponse(status: 401, headers: ["Content-Type": "text/plain"], body: Bytes("A client certificate signed by the server's client CA is required."))
    }
}

/// How the embedded server listens.
package struct HTTPServerConfiguration: Sendable {
    /// Address to bind; never widened to 0.0.0.0.
    package var host: String
    /// Port to bind; 0 picks a free one (see `HTTPServer.port`).
    package var port: UInt16
    /// 1: one epoll thread; more: a thread pool of that size.
    package var threads: Int
    /// Largest request body accepted; larger ones get `payloadTooLarge`.
    package var maxBodyBytes: Int
    /// A connection with no request in progress is closed after this many seconds (0: never).
    package var idleTimeoutSeconds: Int
    /// A request's header block must be in within this many seconds of its
    /// first byte, or its connection gets 408 (plain HTTP) and is closed (0: no limit).
    package var headerTimeoutSeconds: Int
    /// A request's body must be in within this many seconds of its header
    /// block's end, or its connection gets 408 (plain HTTP) and is closed (0: no limit).
    package var bodyTimeoutSeconds: Int
    /// An answer that makes no progress (the client reads nothing) for this
    /// many seconds is dropped with its connection, which frees it (0: never).
    /// Streamed answers count too; upgraded connections do not.
    package var writeTimeoutSeconds: Int
    /// Most simultaneous connections; one more is closed as it is accepted
    /// (0: libmicrohttpd's default, which leaves it in the listen queue).
    package var connectionLimit: Int
    /// libmicrohttpd's memory pool per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`):
    /// it holds the request line, the header fields and the answer's header
    /// block, and stays allocated while the connection is open (a WebSocket
    /// upgraded under TLS keeps it too; a plain one lets it go, see
    /// `UpgradedSocket`). libmicrohttpd zeroes it after every request, so
    /// its size is paid on each one (with libmicrohttpd's 32 KiB default, 49,000
    /// of the instructions callgrind counts per proxied request; see
    /// docs/benchmarks.md). 16 KiB takes a request line plus header fields of
    /// about 13.5 KiB, about 90 fields, a `Cookie` field of about 5.5 KiB
    /// (see `ConnectionMemory`); nginx's default refuses any header line over 8 KiB.
    /// A request that leaves less than `ConnectionMemory.answerReserve`
    /// (an eighth of the pool, at most 2 KiB) gets `refuseFraming(.headerFieldsTooLarge)`
    /// before anything is done for it, so that every answer's header block fits;
    /// answer fields past the room left are dropped (`droppedAnswerFields`).
    /// Bodies do not count: they pass through the pool in pieces.
    package var connectionMemoryBytes: Int
    /// HTTPS and WSS with the certificate and key this store holds at each
    /// handshake (and client certificates when it asks for them); nil: plain HTTP.
    package var tls: TLSCredentialStore?

    package init(host: String = "127.0.0.1", port: UInt16 = 8080, threads: Int = 1, maxBodyBytes: Int = 1 << 20,
                idleTimeoutSeconds: Int = 120, headerTimeoutSeconds: Int = 10, bodyTimeoutSeconds: Int = 60,
                writeTimeoutSeconds: Int = 30, connectionLimit: Int = 0, connectionMemoryBytes: Int = 16 << 10,
                tls: TLSCredentialStore? = nil) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.bodyTimeoutSeconds = bodyTimeoutSeconds
        self.writeTimeoutSeconds = writeTimeoutSeconds
        self.connectionLimit = connectionLimit
        self.connectionMemoryBytes = connectionMemoryBytes
        self.tls = tls
    }
}

/// The embedded HTTP server: libmicrohttpd with its own epoll thread(s),
/// suspend/resume around work done elsewhere, zero-copy answers, and
/// answers streamed over time (`StreamingBody`); a thread of its own
/// watches what libmicrohttpd does not (`ConnectionWatch`).
///
/// `@unchecked Sendable`: `daemon` is set in `start` before any callback can
/// run and cleared in `stop`; counters are atomics; the delegate and the
/// watch are Sendable; the header cache exists only with one server thread,
/// which alone uses it.
package final class HTTPServer: @unchecked Sendable {
    /// The configuration it was started with.
    package let configuration: HTTPServerConfiguration
    let delegate: any HTTPServerDelegate
    private var daemon: OpaquePointer?
    private let suspended = Atomic<Int>(0)
    /// Signalled when the last suspended connection is resumed.
    private let noneSuspended = ChangeSignal()
    private let quiesced = Atomic<Bool>(false)
    /// Set once `quiesce()` closed the listening socket.
    private let listenSocketClosed = Atomic<Bool>(false)
    private let headersOnDemand = Atomic<Bool>(false)
    /// `configuration`'s timeouts, as libmicrohttpd takes them.
    let idleTimeout: UInt32
    let writeTimeout: UInt32
    /// Recent request header fields (by name and value), kept when one thread
    /// serves every connection (a thread pool would share it between threads).
    let requestHeaders: RecentHeaderFields?
    /// The connection memory pool, shared by a request's header block and its answer's.
    let connectionMemory: ConnectionMemory
    /// Whether each request's connection must carry a client certificate the client CAs signed.
    let requiresClientCertificates: Bool
    /// Deadlines, clients closing streams, and the connection limit.
    let watch: ConnectionWatch

    /// Whether requests from now on read their header fields as `HTTPHeaders`
    /// only when something asks for them (`ServerRequest.headers`): for a
    /// delegate that may answer from the fields' bytes alone. Off at first:
    /// each request reads them as it begins, in the pass that measures them.
    package func readHeadersOnDemand(_ on: Bool) {
        headersOnDemand.store(on, ordering: .relaxed)
    }

    var readsHeadersOnDemand: Bool { headersOnDemand.load(ordering: .relaxed) }

    package init(configuration: HTTPServerConfiguration, delegate: any HTTPServerDelegate) {
        self.configuration = configuration
        self.delegate = delegate
        idleTimeout = UInt32(clamping: configuration.idleTimeoutSeconds)
        writeTimeout = UInt32(clamping: configuration.writeTimeoutSeconds)
        requestHeaders = configuration.threads <= 1 ? RecentHeaderFields(capacity: 32, longestKey: 512) : nil
        // 0: libmicrohttpd's default, 32 KiB.
        connectionMemory = ConnectionMemory(poolBytes: configuration.connectionMemoryBytes > 0 ? configuration.connectionMemoryBytes : 32 << 10)
        requiresClientCertificates = configuration.tls?.requiresClientCertificates ?? false
        watch = ConnectionWatch(
            headerTimeoutSeconds: configuration.headerTimeoutSeconds, bodyTimeoutSeconds: configuration.bodyTimeoutSeconds,
            connectionLimit: configuration.connectionLimit, tls: configuration.tls != nil)
    }

    deinit {
        stop()
    }

    /// Binds and starts serving.
    package func start() throws(HTTPServerError) {
        if configuration.connectionLimit > 0 {
            // Each client connection may come with an upstream one, plus the loops' own descriptors.
            OpenFileLimit.raise(toFit: configuration.connectionLimit * 2 + 256)
        }
        // Not MHD_USE_TURBO: it closes connections without a `shutdown`, and a
        // connection dropped for a client too slow to read its stream was then
        // sometimes left open for seconds.
        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_ALLOW_UPGRADE.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()  // the server outlives its daemon (stop() in deinit)
        var error = [CChar](repeating: 0, count: 256)
        let started: OpaquePointer? = configuration.host.withCString { host in
            var options = gqlgate_mhd_start_options(
                flags: UInt32(flags), host: host, port: configuration.port,
                thread_pool_size: UInt32(max(1, configuration.threads)),
                connection_limit: UInt32(clamping: mhdConnectionLimit),
                connection_timeout_seconds: idleTimeout,
                listen_backlog: 1024, connection_memory_limit: configuration.connectionMemoryBytes,
                access_handler: accessHandler, access_handler_cls: context,
                completed_handler: completedHandler, completed_handler_cls: context,
                connection_handler: connectionNotify, connection_handler_cls: context,
                accept_policy: configuration.connectionLimit > 0 ? acceptPolicy : nil, accept_policy_cls: context,
                tls_store: configuration.tls?.store, tls_priorities: nil)
            guard configuration.tls != nil else { return gqlgate_mhd_start(&options, &error, error.count) }
            // Each handshake takes the store's certificate and key of the moment.
            return TLSCredentials.priorities.withCString { priorities in
                options.tls_priorities = priorities
                return gqlgate_mhd_start(&options, &error, error.count)
            }
        }
        guard let started else {
            throw HTTPServerError(message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        daemon = started
        watch.start()
    }

    /// libmicrohttpd's own limit, above `connectionLimit`: at its limit it
    /// stops accepting, and new clients would wait in the listen queue
    /// without an answer. The accept policy closes them instead; the margin
    /// covers the threads of a pool accepting at the same moment.
    private var mhdConnectionLimit: Int {
        configuration.connectionLimit > 0 ? configuration.connectionLimit + max(1, configuration.threads) : 0
    }

    /// The port actually bound.
    package var port: UInt16 {
        guard let daemon else { return 0 }
        return gqlgate_mhd_bound_port(daemon)
    }

    /// Connections currently suspended: requests whose answer is prepared
    /// elsewhere (counted until that answer is sent or the client left), and
    /// streamed answers waiting for their next write.
    package var suspendedRequests: Int { suspended.load(ordering: .acquiring) }

    /// A connection was suspended (server thread).
    func noteSuspended() {
        suspended.add(1, ordering: .relaxed)
    }

    /// A suspended connection runs again, or a dispatched request is over (server thread).
    func noteResumed() {
        if suspended.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { noneSuspended.signal() }
    }

    /// Waits until no connection is suspended (true) or `deadline`
    /// (monotonic nanoseconds, `GatewayClock`) comes (false): then `stop()` is safe.
    package func waitUntilNoneSuspended(before deadline: UInt64) -> Bool {
        noneSuspended.wait(until: { suspendedRequests == 0 }, deadline: deadline)
    }

    /// Whether `quiesce()` was called: every answer from then on closes its connection.
    var isDraining: Bool { quiesced.load(ordering: .relaxed) }

    /// Stops accepting new connections: they are refused from now on. Open
    /// ones are served on, each answer from now on with `Connection: close`.
    ///
    /// Not `MHD_quiesce_daemon`: with epoll and libmicrohttpd's own threads
    /// it races the server threads to take the listening socket out of their
    /// epoll sets, and the loser aborts the process ("Failed to remove listen
    /// FD from epoll set"; seen here about one start-and-drain in twenty).
    /// Instead a placeholder socket takes the listening socket's descriptor:
    /// the listening socket closes (new connections are refused, and the
    /// kernel drops it from every epoll set), while the descriptor
    /// libmicrohttpd holds stays valid until `stop()` closes it.
    package func quiesce() {
        quiesced.store(true, ordering: .relaxed)
        guard let daemon, !listenSocketClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = gqlgate_mhd_close_listen_socket(daemon)
    }

    /// Stops the server. Call only when no request is suspended
    /// (libmicrohttpd aborts otherwise): quiesce, then wait for
    /// `suspendedRequests` to reach 0.
    package func stop() {
        guard let daemon else { return }
        self.daemon = nil
        MHD_stop_daemon(daemon)
        watch.stop()
    }

    func resume(_ connection: OpaquePointer) {
        MHD_resume_connection(connection)
    }
}

#if canImport(Glibc)
import Glibc
#endif
