@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
#if canImport(Glibc)
import Glibc
#endif

/// Connecting: where to, the socket, TLS, the login, and the backoff after a failure.
extension RedisConnection {
    func connect() {
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

    func resolve(_ server: RedisServerAddress, generation: Int) {
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

    func open(address: String, port: Int) {
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

    /// The TCP connect finished: TLS, then the login.
    func connected() {
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

    func handshake() {
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

    /// `AUTH` and `SELECT` as the URL asks (`Role.Login`), `ROLE` when a master is required,
    /// then `PING`, whose answer makes the connection ready.
    func logIn() {
        state = .loggingIn
        var commands: [[String]] = []
        if let password = settings.url.password {
            commands.append(settings.url.user.map { ["AUTH", $0, password] } ?? ["AUTH", password])
        }
        if role.login == .master, settings.url.database != 0 { commands.append(["SELECT", String(settings.url.database)]) }
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

    func loggedIn(_ command: String, _ result: Result<RedisReply, RedisError>) {
        switch result {
        case .success(.error) where command == "AUTH" && role.login == .sentinel:
            break  // a sentinel without a password refuses any; one that needs another refuses the next command
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

    func ready() {
        if let pendingConnectTimer { loop.cancel(pendingConnectTimer) }
        pendingConnectTimer = nil
        state = .ready
        readySince = GatewayClock.system.monotonicNanoseconds()
        events.ready(ObjectIdentifier(self))
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
    func drop(reason: String) {
        guard !isClosed else { return }
        let uptime = readySince.map { Duration.nanoseconds(Int64(GatewayClock.system.monotonicNanoseconds() - $0)) }
        teardown(reason: reason)
        failed(reason: reason, uptime: uptime)
    }

    /// Closes the socket and fails every command waiting.
    func teardown(reason: String) {
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
    func failed(reason: String, uptime: Duration? = nil) {
        lastFailure = reason
        let waiting = queued
        queued.removeAll()
        for (_, pending) in waiting { pending.complete(.failure(.unavailable(reason))) }
        guard role.reconnects else {
            state = .closed
            return
        }
        events.failed(ObjectIdentifier(self), reason)
        state = .waiting
        let delay = backoff.nextDelay(afterUptime: uptime)
        retryTimer = loop.schedule(after: delay) { [weak self] in
            guard let self, case .waiting = self.state else { return }
            self.retryTimer = nil
            self.events.reconnecting()
            self.connect()
        }
    }
}
