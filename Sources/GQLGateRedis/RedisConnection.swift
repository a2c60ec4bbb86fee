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
        /// `AUTH` and `SELECT` as the URL says (not for sentinels).
        var logsIn = true
        /// `ROLE` must say master, and a `READONLY` reply drops the connection
        /// (a master found through Sentinel may have been demoted since).
        var requiresMaster = false
        /// Connect again after a failure (a one-off connection to a sentinel does not).
        var reconnects = true
    }

    private enum State {
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
    private let settings: RedisClient.Settings
    private let role: Role
    private let locate: Locate
    private let events: RedisAvailability
    private var state = State.idle
    private var fd: Int32 = -1
    private var stream: (any RedisStream)?
    private var reader: RedisReplyReader?
    private var server: RedisServerAddress?
    /// Epoll events watched on `fd`.
    private var watched: UInt32 = 0
    /// Commands written, in order: each reply completes the first.
    private var inFlight = Deque<RedisPendingCommand>()
    /// Commands waiting for the connection to be ready.
    private var queued: [([[UInt8]], RedisPendingCommand)] = []
    /// RESP bytes not written yet, from `outputStart`.
    private var output: [UInt8] = []
    private var outputStart = 0
    private var readBuffer: [UInt8] = []
    /// Counts connections made, so a callback of an older one is told apart.
    private var generation = 0
    private var retryTimer: EventLoopTimerID?
    private var readySince: UInt64?
    private var backoff: ReconnectBackoff
    /// Why the last connection failed, for errors and the outage warning.
    private(set) var lastFailure = "not connected yet"
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
    }

    private var isClosed: Bool { if case .closed = state { true } else { false } }

    /// Encodes a command into the output and writes what the socket takes.
    private func write(_ arguments: [[UInt8]], _ pending: RedisPendingCommand) {
        RedisCommandEncoding.append(arguments, to: &output)
        inFlight.append(pending)
        flush()
    }

    private func flush() {
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

    // MARK: - Connecting

    private func connect() {
        generation += 1
        let generation = generation
        state = .locating
        locate(loop) { [weak self] located in
            guard let self, self.generation == generation, case .locating = self.state else { return }
            switch located {
            case .failure(let error): self.failed(reason: Self.reason(error))
            case .success(let server): self.resolve(server, generation: generation)
            }
        }
    }

    private func resolve(_ server: RedisServerAddress, generation: Int) {
        self.server = server
        if RedisAddress.isNumeric(server.host) {
            open(address: server.host, port: server.port)
            return
        }
        let me = LoopBound(self, loop: loop)
        RedisAddress.resolve(server.host) { resolved in
            me.loop.execute {
                let connection = me.value
                guard connection.generation == generation, case .locating = connection.state else { return }
                switch resolved {
                case .success(let address): connection.open(address: address, port: server.port)
                case .failure(let error): connection.failed(reason: Self.reason(error))
                }
            }
        }
    }

    private func open(address: String, port: Int) {
        switch RedisSocket.open(address: address, port: port) {
        case .failure(let error):
            failed(reason: Self.reason(error))
        case .success(let socket):
            fd = socket
            state = .connecting
            let generation = generation
            // The connect, the TLS handshake and the login share the connect timeout.
            pendingConnectTimer = loop.schedule(after: settings.connectTimeout) { [weak self] in
                guard let self, self.generation == generation else { return }
                self.pendingConnectTimer = nil
                switch self.state {
                case .connecting, .handshaking, .loggingIn: self.drop(reason: "not connected within \(self.settings.connectTimeout)")
                default: break
                }
            }
            watch(EventLoop.writable)
        }
    }

    private var pendingConnectTimer: EventLoopTimerID?

    /// The TCP connect finished: TLS, then the login.
    private func connected() {
        if case .failure(let error) = RedisSocket.connectResult(fd) {
            drop(reason: Self.reason(error))
            return
        }
        do throws(RedisError) {
            stream = try settings.makeStream(fd, server?.host ?? "")
        } catch {
            drop(reason: Self.reason(error))
            return
        }
        reader = RedisReplyReader(maxElements: settings.maxReplyElements, maxBytes: settings.maxReplyBytes)
        state = .handshaking
        handshake()
    }

    private func handshake() {
        guard let stream else { return }
        switch stream.handshake() {
        case .done:
            logIn()
        case .wouldBlock(let wantsWrite):
            watch(wantsWrite ? EventLoop.writable : EventLoop.readable)
        case .closed:
            drop(reason: "closed by the server during the TLS handshake")
        case .failed(let reason):
            drop(reason: "TLS: \(reason)")
        }
    }

    /// `AUTH` and `SELECT` as the URL asks, `ROLE` when a master is required,
    /// then `PING`, whose answer makes the connection ready.
    private func logIn() {
        state = .loggingIn
        var commands: [[String]] = []
        if role.logsIn, let password = settings.url.password {
            commands.append(settings.url.user.map { ["AUTH", $0, password] } ?? ["AUTH", password])
        }
        if role.logsIn, settings.url.database != 0 { commands.append(["SELECT", String(settings.url.database)]) }
        if role.requiresMaster { commands.append(["ROLE"]) }
        commands.append(["PING"])
        let generation = generation
        for command in commands {
            let pending = RedisPendingCommand { [weak self] result in
                guard let self, self.generation == generation else { return }
                self.loggedIn(command[0], result)
            }
            write(command.map { Array($0.utf8) }, pending)
        }
    }

    private func loggedIn(_ command: String, _ result: Result<RedisReply, RedisError>) {
        switch result {
        case .success(.error(let message)):
            drop(reason: "\(command) failed: \(message)")
        case .success(let reply) where command == "ROLE":
            guard reply.elements?.first?.bytes == Array("master".utf8) else {
                drop(reason: "\(server.map { "\($0)" } ?? "the server") is not a master")
                return
            }
        case .success(let reply) where command == "PING":
            guard reply == .status("PONG") else {
                drop(reason: "PING answered \(reply)")
                return
            }
            ready()
        case .success:
            break
        case .failure(let error):
            drop(reason: "\(command): \(error)")
        }
    }

    private func ready() {
        if let pendingConnectTimer { loop.cancel(pendingConnectTimer) }
        pendingConnectTimer = nil
        state = .ready
        readySince = GatewayClock.system.monotonicNanoseconds()
        events.ready()
        let waiting = queued
        queued = []
        for (arguments, pending) in waiting where pending.isWaiting {
            RedisCommandEncoding.append(arguments, to: &output)
            inFlight.append(pending)
        }
        flush()
        onReady?()
    }

    /// Drops the connection now, if there is one (the server it reached is no
    /// longer the right one); a new one is made at once.
    /// Waiting after a failure, it tries again at once.
    func reconnect(reason: String) {
        switch state {
        case .idle, .closed:
            return
        case .waiting:
            if let retryTimer { loop.cancel(retryTimer) }
            retryTimer = nil
        default:
            teardown(reason: reason)
            lastFailure = reason
        }
        events.reconnecting()
        connect()
    }

    /// Drops the current connection (if any): commands waiting fail, and a
    /// new one is made after the backoff.
    private func drop(reason: String) {
        guard !isClosed else { return }
        let uptime = readySince.map { Duration.nanoseconds(Int64(GatewayClock.system.monotonicNanoseconds() - $0)) }
        teardown(reason: reason)
        failed(reason: reason, uptime: uptime)
    }

    /// Closes the socket and fails every command waiting.
    private func teardown(reason: String) {
        generation += 1
        if let pendingConnectTimer { loop.cancel(pendingConnectTimer) }
        pendingConnectTimer = nil
        if fd >= 0 {
            if watched != 0 { loop.unregister(fd) }
            Glibc.close(fd)
        }
        watched = 0
        fd = -1
        stream = nil
        reader = nil
        readySince = nil
        output.removeAll()
        outputStart = 0
        let written = inFlight
        inFlight.removeAll()
        let waiting = queued
        queued.removeAll()
        for pending in written { pending.complete(.failure(.unavailable(reason))) }
        for (_, pending) in waiting { pending.complete(.failure(.unavailable(reason))) }
    }

    /// Reports the failure and waits before the next attempt.
    private func failed(reason: String, uptime: Duration? = nil) {
        lastFailure = reason
        let waiting = queued
        queued.removeAll()
        for (_, pending) in waiting { pending.complete(.failure(.unavailable(reason))) }
        guard role.reconnects else {
            state = .closed
            return
        }
        events.failed(reason)
        state = .waiting
        let delay = backoff.nextDelay(afterUptime: uptime)
        retryTimer = loop.schedule(after: delay) { [weak self] in
            guard let self, case .waiting = self.state else { return }
            self.retryTimer = nil
            self.events.reconnecting()
            self.connect()
        }
    }

    // MARK: - Events

    private func watch(_ events: UInt32) {
        guard fd >= 0, events != watched else { return }
        watched = events
        loop.register(fd, events: events, handler: self)
    }

    func handleEvents(_ events: UInt32) {
        switch state {
        case .connecting:
            connected()
        case .handshaking:
            handshake()
        case .loggingIn, .ready:
            let generation = generation
            if events & (EventLoop.readable | EventLoop.error | EventLoop.hangUp) != 0 { readReplies() }
            if generation == self.generation, events & EventLoop.writable != 0 { flush() }
        default:
            break
        }
    }

    /// Reads what the socket holds and completes a command per reply.
    /// At most this many reads per readiness event, so that a server sending
    /// without end (a hostile or broken one) never holds the loop: its timers
    /// (the command timeout above all) run between events.
    private static let readsPerEvent = 16

    private func readReplies() {
        guard let stream, let reader else { return }
        let generation = generation
        if readBuffer.isEmpty { readBuffer = [UInt8](repeating: 0, count: 16 << 10) }
        for _ in 0..<Self.readsPerEvent {
            guard generation == self.generation else { return }
            let step = readBuffer.withUnsafeMutableBytes { stream.read(into: $0) }
            switch step {
            case .done(let count):
                let read = readBuffer.withUnsafeBytes { bytes in
                    Result { () throws(RedisReplyReader.Failure) in try reader.read(UnsafeRawBufferPointer(rebasing: bytes[..<count])) }
                }
                guard case .success(let replies) = read else {
                    if case .failure(let failure) = read { drop(reason: failure.message) }
                    return
                }
                for reply in replies {
                    guard generation == self.generation else { return }
                    deliver(reply)
                }
                if count < readBuffer.count, !stream.hasBufferedBytes { return }
            case .wouldBlock(let wantsWrite):
                if wantsWrite { watch(EventLoop.readable | EventLoop.writable) }
                return
            case .closed, .failed:
                ended(step)
                return
            }
        }
        // Bytes TLS decrypted already raise no event of the socket: read them on the next turn of the loop.
        guard generation == self.generation, stream.hasBufferedBytes else { return }
        let me = LoopBound(self, loop: loop)
        loop.execute {
            let connection = me.value
            if connection.generation == generation { connection.readReplies() }
        }
    }

    /// Drops the connection after a read or write that found the stream closed or broken.
    private func ended(_ step: RedisStreamStep) {
        if case .failed(let reason) = step {
            drop(reason: reason)
        } else {
            drop(reason: "closed by the server")
        }
    }

    private func deliver(_ reply: RedisReply) {
        if let onPush, case .array(let elements) = reply, let kind = elements.first?.bytes,
           kind == Array("message".utf8) || kind == Array("pmessage".utf8) {
            onPush(reply)
            return
        }
        guard let pending = inFlight.popFirst() else {
            drop(reason: "a reply to no command")
            return
        }
        if let timer = pending.timer { loop.cancel(timer) }
        pending.complete(.success(reply))
        if role.requiresMaster, case .error(let message) = reply, message.hasPrefix("READONLY") {
            drop(reason: "\(server.map { "\($0)" } ?? "the server") is a replica now")
        }
    }

    private static func reason(_ error: RedisError) -> String {
        if case .unavailable(let reason) = error { return reason }
        return error.description
    }
}

@available(*, unavailable)
extension RedisConnection: Sendable {}
