import CHiredis
import CHiredisShims
import GQLGateCore
import GQLGateEventLoop

/// One hiredis async connection driven by an `EventLoop`: hiredis' read and
/// write hooks register its socket in the loop's epoll, loop timers bound
/// each command and the connect, and after a failure the connection is made
/// again after a jittered backoff. While there is none (between attempts),
/// commands fail at once with `RedisError.unavailable`.
///
/// Loop-bound: created on any thread, then used only on `loop`'s thread
/// (every entry point runs in a loop closure, a loop timer, an epoll
/// callback or a hiredis callback made from one of those); other threads
/// reach it through a `LoopBound`.
final class RedisConnection: FileDescriptorHandler {
    let loop: EventLoop
    private let settings: RedisClient.Settings
    private let availability: RedisAvailability
    private var context: UnsafeMutablePointer<redisAsyncContext>?
    /// The socket and the epoll events hiredis wants on it.
    private var fd: Int32 = -1
    private var watched: UInt32 = 0
    private var resolving = false
    /// Set while hiredis frees the context at our request (it may defer that to the end of a callback).
    private var dropping = false
    private var retryTimer: EventLoopTimerID?
    private var readySince: UInt64?
    private var backoff: ReconnectBackoff
    /// Why the last connection failed, for errors and the outage warning.
    private(set) var lastFailure = "not connected yet"
    private var closed = false
    /// What one reply may make hiredis allocate; checked by its reader (outlives every context).
    private let replyLimits: UnsafeMutablePointer<gqlgate_redis_reply_limits>

    init(loop: EventLoop, settings: RedisClient.Settings, availability: RedisAvailability) {
        self.loop = loop
        self.settings = settings
        self.availability = availability
        backoff = ReconnectBackoff(initialDelay: settings.reconnectDelay, maximumDelay: settings.maximumReconnectDelay,
                                   stableAfter: .seconds(10))
        replyLimits = .allocate(capacity: 1)
        replyLimits.initialize(to: gqlgate_redis_reply_limits(
            max_elements: Int64(settings.maxReplyElements), max_bytes: Int64(settings.maxReplyBytes), elements: 0, bytes: 0, exceeded: 0))
    }

    deinit {
        replyLimits.deallocate()
    }

    // MARK: - Commands

    /// Sends `arguments` as one command; `completion` runs on the loop with
    /// its reply or why there is none. Loop only.
    func send(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        send(arguments, timeout: settings.commandTimeout, completion: completion)
    }

    /// Sends a command that fails after `timeout`; a timeout on a ready
    /// connection drops it (replies come in order, so every later one would be late too).
    private func send(_ arguments: [[UInt8]], timeout: Duration, completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        if context == nil, !closed, !resolving, retryTimer == nil { connect() }
        guard let context, !closed else {
            completion(.failure(.unavailable(lastFailure)))
            return
        }
        let pending = RedisPendingCommand(completion)
        let privdata = Unmanaged.passRetained(pending).toOpaque()  // released in redisReplyCallback
        let rc = Self.withArgv(arguments) { argc, argv, lengths in
            redisAsyncCommandArgv(context, redisReplyCallback, privdata, argc, argv, lengths)
        }
        guard rc == REDIS_OK else {
            Unmanaged<RedisPendingCommand>.fromOpaque(privdata).release()
            pending.complete(.failure(.unavailable(lastFailure)))
            return
        }
        pending.timer = loop.schedule(after: timeout) { [weak self, weak pending] in
            guard let pending, pending.isWaiting else { return }
            pending.complete(.failure(.timedOut))
            guard let self, self.readySince != nil else { return }
            self.drop(context, reason: "no reply within \(timeout)")
        }
    }

    /// Closes the connection for good: commands waiting fail, nothing is left
    /// on the loop. Loop only.
    func close() {
        closed = true
        if let retryTimer { loop.cancel(retryTimer) }
        retryTimer = nil
        if let context, !dropping {
            dropping = true
            redisAsyncFree(context)
        }
    }

    // MARK: - Connecting

    private func connect() {
        let host = settings.url.host
        if RedisAddress.isNumeric(host) {
            open(address: host)
            return
        }
        resolving = true
        let me = LoopBound(self, loop: loop)
        RedisAddress.resolve(host) { resolved in
            me.loop.execute {
                let connection = me.value
                connection.resolving = false
                guard !connection.closed else { return }
                switch resolved {
                case .success(let address): connection.open(address: address)
                case .failure(let error): connection.failed(String(describing: error))
                }
            }
        }
    }

    private func open(address: String) {
        guard let context = redisAsyncConnect(address, Int32(settings.url.port)) else {
            failed("cannot allocate a connection")
            return
        }
        guard context.pointee.err == 0 else {
            let message = Self.errorText(context)
            redisAsyncFree(context)
            failed(message)
            return
        }
        self.context = context
        replyLimits.pointee.exceeded = 0
        gqlgate_redis_limit_replies(context, replyLimits)
        fd = context.pointee.c.fd
        let me = Unmanaged.passUnretained(self).toOpaque()  // the context is freed before the connection goes
        context.pointee.data = me
        context.pointee.ev.data = me
        context.pointee.ev.addRead = { RedisConnection.from($0).watch(EventLoop.readable, on: true) }
        context.pointee.ev.delRead = { RedisConnection.from($0).watch(EventLoop.readable, on: false) }
        context.pointee.ev.addWrite = { RedisConnection.from($0).watch(EventLoop.writable, on: true) }
        context.pointee.ev.delWrite = { RedisConnection.from($0).watch(EventLoop.writable, on: false) }
        context.pointee.ev.cleanup = { RedisConnection.from($0).contextFreed() }
        for command in handshake() { sendHandshake(command) }
    }

    /// `AUTH` and `SELECT` as the URL asks, then `PING`, whose answer makes the
    /// connection ready; each bounded by the connect timeout.
    private func handshake() -> [[String]] {
        var commands: [[String]] = []
        if let password = settings.url.password {
            commands.append(settings.url.user.map { ["AUTH", $0, password] } ?? ["AUTH", password])
        }
        if settings.url.database != 0 { commands.append(["SELECT", String(settings.url.database)]) }
        commands.append(["PING"])
        return commands
    }

    private func sendHandshake(_ command: [String]) {
        guard let context else { return }
        send(command.map { Array($0.utf8) }, timeout: settings.connectTimeout) { [weak self] result in
            guard let self, self.context == context else { return }
            switch result {
            case .success(.error(let message)):
                self.drop(context, reason: "\(command[0]) failed: \(message)")
            case .success(let reply) where command[0] == "PING":
                guard reply == .status("PONG") else {
                    self.drop(context, reason: "PING answered \(reply)")
                    return
                }
                self.readySince = GatewayClock.system.monotonicNanoseconds()
                self.availability.ready()
            case .success:
                break
            case .failure(let error):
                self.drop(context, reason: "\(command[0]): \(error)")
            }
        }
    }

    /// Drops `context` if it is still the current one; hiredis fails its
    /// waiting commands and calls `contextFreed`.
    private func drop(_ context: UnsafeMutablePointer<redisAsyncContext>, reason: String) {
        guard self.context == context, !dropping else { return }
        dropping = true
        lastFailure = reason
        redisAsyncFree(context)
    }

    /// hiredis' cleanup hook: the context is going (error, drop or close).
    private func contextFreed() {
        guard let context else { return }
        dropping = false
        if replyLimits.pointee.exceeded != 0 {
            lastFailure = "a reply past \(settings.maxReplyElements) elements or \(settings.maxReplyBytes) bytes"
        } else if context.pointee.err != 0 {
            lastFailure = Self.errorText(context)
        }
        self.context = nil
        if watched != 0 { loop.unregister(fd) }
        watched = 0
        fd = -1
        let uptime = readySince.map { Duration.nanoseconds(Int64(GatewayClock.system.monotonicNanoseconds() - $0)) }
        readySince = nil
        guard !closed else { return }
        failed(lastFailure, uptime: uptime)
    }

    /// Reports the failure and waits before the next attempt.
    private func failed(_ reason: String, uptime: Duration? = nil) {
        lastFailure = reason
        availability.failed(reason)
        let delay = backoff.nextDelay(afterUptime: uptime)
        retryTimer = loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            self.retryTimer = nil
            if !self.closed, self.context == nil { self.connect() }
        }
    }

    // MARK: - Events

    private func watch(_ event: UInt32, on: Bool) {
        guard fd >= 0 else { return }
        let events = on ? watched | event : watched & ~event
        guard events != watched else { return }
        watched = events
        if events == 0 {
            loop.unregister(fd)
        } else {
            loop.register(fd, events: events, handler: self)
        }
    }

    func handleEvents(_ events: UInt32) {
        if events & (EventLoop.readable | EventLoop.error | EventLoop.hangUp) != 0, let context {
            redisAsyncHandleRead(context)
            // A reply still arriving is buffered whole before hiredis reads it: bounded here.
            if let current = self.context, gqlgate_redis_unread_bytes(current) > settings.maxReplyBytes {
                drop(current, reason: "a reply past \(settings.maxReplyBytes) bytes")
            }
        }
        if events & (EventLoop.writable | EventLoop.error) != 0, let context {
            redisAsyncHandleWrite(context)
        }
    }

    // MARK: - C glue

    fileprivate static func from(_ pointer: UnsafeMutableRawPointer?) -> RedisConnection {
        Unmanaged<RedisConnection>.fromOpaque(pointer!).takeUnretainedValue()
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisAsyncContext>) -> String {
        context.pointee.errstr.map { String(cString: $0) } ?? "error \(context.pointee.err)"
    }

    /// Calls `body` with the arguments as hiredis' argc, argv and argvlen.
    private static func withArgv(_ arguments: [[UInt8]],
                                 _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Int32) -> Int32 {
        let total = arguments.reduce(0) { $0 + $1.count }
        var storage = [UInt8]()
        storage.reserveCapacity(total)
        for argument in arguments { storage.append(contentsOf: argument) }
        return storage.withUnsafeBytes { raw in
            var offsets: [UnsafePointer<CChar>?] = []
            var lengths: [Int] = []
            var offset = 0
            let base = raw.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) } ?? UnsafePointer<CChar>(bitPattern: 1)!
            for argument in arguments {
                offsets.append(base + offset)
                lengths.append(argument.count)
                offset += argument.count
            }
            return offsets.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { lengths in body(Int32(arguments.count), argv.baseAddress!, lengths.baseAddress!) }
            }
        }
    }
}

/// hiredis' reply callback: completes the command sent with `privdata`
/// (a NULL reply means the connection went first).
private func redisReplyCallback(_ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
                                _ privdata: UnsafeMutableRawPointer?) {
    guard let privdata else { return }
    let pending = Unmanaged<RedisPendingCommand>.fromOpaque(privdata).takeRetainedValue()  // balances send(_:completion:)
    if let timer = pending.timer, let data = context?.pointee.data {
        Unmanaged<RedisConnection>.fromOpaque(data).takeUnretainedValue().loop.cancel(timer)
    }
    guard let reply else {
        let detail = context.flatMap { $0.pointee.errstr.map { String(cString: $0) } } ?? ""
        let connection = context?.pointee.data.map { Unmanaged<RedisConnection>.fromOpaque($0).takeUnretainedValue() }
        pending.complete(.failure(.unavailable(detail.isEmpty ? connection?.lastFailure ?? "connection closed" : detail)))
        return
    }
    pending.complete(.success(RedisReply(hiredis: reply.assumingMemoryBound(to: redisReply.self))))
}

@available(*, unavailable)
extension RedisConnection: Sendable {}
