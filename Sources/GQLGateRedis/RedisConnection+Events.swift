import GQLGateEventLoop

/// The socket's events: what epoll reports, replies read and handed to their commands.
extension RedisConnection {
    func watch(_ events: UInt32) {
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
    static let readsPerEvent = 16

    func readReplies() {
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
    func ended(_ step: RedisStreamStep) {
        if case .failed(let reason) = step {
            drop(reason: reason)
        } else {
            drop(reason: "closed by the server")
        }
    }

    func deliver(_ reply: RedisReply) {
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

    static func reason(_ error: RedisError) -> String {
        if case .unavailable(let reason) = error { return reason }
        return error.description
    }
}
