import DequeModule
import GQLGateCore
import GQLGateEventLoop
#if canImport(Glibc)
import Glibc
#endif

/// One connection to one Redis server, on a socket of the gateway's own
/// driven by an `EventLoop`: commands are written as RESP, replies read with
/// hiredis' reader (`RedisReplyReader`), through TLS when the client has
/// credentials. Where to connect is asked each time (`locate`: a fixed
/// address, a Sentinel's answer, a cluster node), names are resolved off the
/// loop, and after a failure the connection is made again after a jittered
/// backoff. Commands sent while it connects wait for it (each within its
/// timeout); between attempts they fail at once with `RedisError.unavailable`.
///
/// Loop-bound: created on any thread, then used only on `loop`'s thread.
final class RedisConnection: FileDescriptorHandler {
    /// Finds the server to connect to; calls back on the loop.
    typealias Locate = (_ loop: EventLoop, _ completion: @escaping (Result<RedisServerAddress, RedisError>) -> Void) -> Void

    /// How the connection logs in and what it checks after connecting.
    struct Role {
        /// How the connection logs in.
        enum Login {
            /// `AUTH` and `SELECT` as the URL says.
            case master
            /// A sentinel: `AUTH` with the URL's credentials when it has a
            /// password (sentinels often share the master's, as Bitnami's
            /// chart sets them), its refusal ignored (a sentinel without a
            /// password refuses any); no `SELECT`.
            case sentinel
        }

        var login = Login.master
        /// `ROLE` must say master, and a `READONLY` reply drops the connection
        /// (a master found through Sentinel may have been demoted since).
        var requiresMaster = false
        /// Connect again after a failure (a one-off connection to a sentinel does not).
        var reconnects = true
    }

    enum State {
        /// Not connected; the first command connects.
        case idle
        /// Asking where to connect, or resolving its name.
        case locating
        /// The TCP connect is under way.
        case connecting
        /// The TLS handshake is under way.
        case handshaking
        /// `AUTH`/`SELECT`/`ROLE`/`PING` sent; commands wait for the `PING`'s answer.
        case loggingIn
        case ready
        /// After a failure, until the next attempt.
        case waiting
        case closed
    }

    let loop: EventLoop
    let settings: RedisClient.Settings
    let role: Role
    let locate: Locate
    let events: RedisAvailability
    var state = State.idle
    var fd: Int32 = -1
    var stream: (any RedisStream)?
    var reader: RedisReplyReader?
    var server: RedisServerAddress?
    /// Epoll events watched on `fd`.
    var watched: UInt32 = 0
    /// Commands written, in order: each reply completes the first.
    var inFlight = Deque<RedisPendingCommand>()
    /// Commands waiting for the connection to be ready.
    var queued: [([[UInt8]], RedisPendingCommand)] = []
    /// RESP bytes not written yet, from `outputStart`.
    var output: [UInt8] = []
    var outputStart = 0
    var readBuffer: [UInt8] = []
    /// Counts connections made, so a callback of an older one is told apart.
    var generation = 0
    var retryTimer: EventLoopTimerID?
    /// Bounds the connect, the TLS handshake and the login together.
    var pendingConnectTimer: EventLoopTimerID?
    var readySince: UInt64?
    var backoff: ReconnectBackoff
    /// Why the last connection failed, for errors and the outage warning.
    var lastFailure = "not connected yet"
    /// Told of every reply that answers no command (a subscriber's messages).
    var onPush: ((RedisReply) -> Void)?
    /// Told each time a connection is ready (a subscriber subscribes again).
    var onReady: (() -> Void)?

    init(loop: EventLoop, settings: RedisClient.Settings, role: Role = Role(), events: RedisAvailability, locate: @escaping Locate) {
        self.loop = loop
        self.settings = settings
        self.role = role
        self.events = events
        self.locate = locate
        backoff = ReconnectBackoff(initialDelay: settings.reconnectDelay, maximumDelay: settings.maximumReconnectDelay,
                                   stableAfter: .seconds(10))
    }

    /// The server connected to (or last connected to).
    var address: RedisServerAddress? { server }

    /// Whether the connection is logged in and answering.
    var isReady: Bool { if case .ready = state { true } else { false } }

    // MARK: - Commands

    /// Sends `arguments` as one command; `completion` runs on the loop with
    /// its reply or why there is none. Loop only.
    func send(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        switch state {
        case .closed:
            completion(.failure(.unavailable("closed")))
            return
        case .waiting:
            completion(.failure(.unavailable(lastFailure)))
            return
        case .idle:
            connect()
            // Connecting may fail at once (no socket, an address that cannot be used).
            switch state {
            case .waiting, .closed:
                completion(.failure(.unavailable(lastFailure)))
                return
            default:
                break
            }
        default:
            break
        }
        let pending = RedisPendingCommand(completion)
        let generation = generation
        pending.timer = loop.schedule(after: settings.commandTimeout) { [weak self, weak pending] in
            guard let pending, pending.isWaiting else { return }
            pending.complete(.failure(.timedOut))
            // Replies come in order: once one is late on a live connection, every later one is too.
            guard let self, self.generation == generation, self.inFlight.contains(where: { $0 === pending }) else { return }
            self.drop(reason: "no reply within \(self.settings.commandTimeout)")
        }
        if case .ready = state {
            write(arguments, pending)
        } else {
            queued.append((arguments, pending))
        }
    }

    /// Connects, if nothing did yet. Loop only.
    func start() {
        if case .idle = state { connect() }
    }

    /// Closes the connection for good: commands waiting fail, nothing is left
    /// on the loop. Loop only.
    func close() {
        guard !isClosed else { return }
        if let retryTimer { loop.cancel(retryTimer) }
        retryTimer = nil
        teardown(reason: "closed")
        state = .closed
        events.closed(ObjectIdentifier(self))
    }

    var isClosed: Bool { if case .closed = state { true } else { false } }

    /// Encodes a command into the output and writes what the socket takes.
    func write(_ arguments: [[UInt8]], _ pending: RedisPendingCommand) {
        RedisCommandEncoding.append(arguments, to: &output)
        inFlight.append(pending)
        flush()
    }

    func flush() {
        guard let stream else { return }
        while outputStart < output.count {
            let step = output.withUnsafeBytes { stream.write(UnsafeRawBufferPointer(rebasing: $0[outputStart...])) }
            switch step {
            case .done(let count):
                outputStart += count
            case .wouldBlock(let wantsWrite):
                watch(EventLoop.readable | (wantsWrite ? EventLoop.writable : 0))
                return
            case .closed, .failed:
                ended(step)
                return
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 64 << 10)
        outputStart = 0
        watch(EventLoop.readable)
    }
}

@available(*, unavailable)
extension RedisConnection: Sendable {}
