package import GQLGateCore
package import GQLGateEventLoop

/// The client's opening handshake over a connected transport: writes the
/// upgrade request, reads until the answer's header is complete (and on until
/// the transport would block, so nothing stays buffered in a TLS layer where
/// epoll cannot see it), and checks it.
package enum WebSocketClientUpgrade {
    /// Upgrades `transport` and returns the server's answer, whose `remainder`
    /// must be fed to the connection first. Call from a task running on `loop`
    /// (one that prefers it as its executor).
    ///
    /// - Parameters:
    ///   - host: the `Host` header (`name` or `name:port`).
    ///   - target: the request target: path and query.
    ///   - timeout: limit for the whole exchange.
    /// - Throws: `WebSocketError` (`.badHandshakeResponse`, `.transportFailed`).
    package static func perform(over transport: any ByteStream, loop: EventLoop, handshake: WebSocketClientHandshake,
                               host: String, target: String, headers: HTTPHeaders = HTTPHeaders(),
                               timeout: Duration) async throws -> WebSocketHandshakeResponse {
        assert(loop.inLoop)
        let exchange = UpgradeExchange(transport: transport, loop: loop, handshake: handshake,
                                       request: handshake.request(host: host, path: target, headers: headers))
        return try await withUnsafeThrowingContinuation { continuation in
            exchange.start(timeout: timeout, resuming: continuation)
        }
    }
}

/// One handshake in flight on a loop.
private final class UpgradeExchange: FileDescriptorHandler {
    let transport: any ByteStream
    let loop: EventLoop
    let handshake: WebSocketClientHandshake
    let request: [UInt8]
    var written = 0
    var received: [UInt8] = []
    var continuation: UnsafeContinuation<WebSocketHandshakeResponse, any Error>?
    var timer: EventLoopTimerID?

    init(transport: any ByteStream, loop: EventLoop, handshake: WebSocketClientHandshake, request: [UInt8]) {
        self.transport = transport
        self.loop = loop
        self.handshake = handshake
        self.request = request
    }

    func start(timeout: Duration, resuming continuation: UnsafeContinuation<WebSocketHandshakeResponse, any Error>) {
        self.continuation = continuation
        timer = loop.schedule(after: timeout) { [weak self] in
            self?.timer = nil
            self?.finish(.failure(WebSocketError(.transportFailed, "no WebSocket handshake answer within \(timeout)")))
        }
        step()
    }

    func handleEvents(_ events: UInt32) {
        step()
    }

    private func step() {
        guard continuation != nil else { return }
        while written < request.count {
            let result = request.withUnsafeBytes { transport.send(UnsafeRawBufferPointer(rebasing: $0[written...]), more: false) }
            switch result {
            case .transferred(let count): written += count
            case .wouldBlock: return watch(EventLoop.writable)
            case .endOfStream, .failed: return finish(.failure(WebSocketError(.transportFailed, "the connection failed while sending the upgrade request")))
            }
        }
        var ended = false
        reading: while true {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let result = chunk.withUnsafeMutableBytes { transport.receive(into: $0) }
            switch result {
            case .transferred(let count): received += chunk[..<count]
            case .wouldBlock: break reading
            case .endOfStream, .failed:
                ended = true
                break reading
            }
        }
        do {
            if let response = try handshake.parseResponse(received) {
                return finish(.success(response))
            }
        } catch {
            return finish(.failure(error))
        }
        if ended {
            return finish(.failure(WebSocketError(.transportFailed, "the connection closed before the handshake answer was complete")))
        }
        watch(EventLoop.readable)
    }

    private func watch(_ events: UInt32) {
        loop.register(transport.fileDescriptor, events: events, handler: self)
    }

    private func finish(_ result: Result<WebSocketHandshakeResponse, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        if let timer { loop.cancel(timer) }
        timer = nil
        loop.unregister(transport.fileDescriptor)
        continuation.resume(with: result)
    }
}
