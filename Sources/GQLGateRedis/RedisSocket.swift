#if canImport(Glibc)
import Glibc
#endif

/// The TCP socket of one Redis connection: opened non-blocking to a numeric
/// address (names are resolved first, off the loop, by `RedisAddress`), with
/// Nagle off, since commands are small and answered one by one.
enum RedisSocket {
    /// A socket whose connect to `address`:`port` is under way (or done);
    /// the connection watches it for writability, then calls `connectResult`.
    static func open(address: String, port: Int) -> Result<Int32, RedisError> {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address, String(port), &hints, &list) == 0, let info = list else {
            return .failure(.unavailable("not a numeric address: \(address)"))
        }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.unavailable("socket: \(String(cString: strerror(errno)))")) }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0, errno != EINPROGRESS {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(.unavailable("connect to \(RedisServerAddress(host: address, port: port)): \(reason)"))
        }
        return .success(fd)
    }

    /// Whether the connect started by `open` succeeded, once the socket is writable.
    static func connectResult(_ fd: Int32) -> Result<Void, RedisError> {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else {
            return .failure(.unavailable("getsockopt: \(String(cString: strerror(errno)))"))
        }
        return error == 0 ? .success(()) : .failure(.unavailable("connect: \(String(cString: strerror(error)))"))
    }
}

/// A connection's bytes as they are, straight on the socket.
final class RedisPlainStream: RedisStream {
    private let fd: Int32

    init(descriptor: Int32) {
        fd = descriptor
    }

    func handshake() -> RedisStreamStep { .done(0) }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> RedisStreamStep {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .done(count) }
            if count == 0 { return .closed }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock(wantsWrite: false) }
            return .failed(String(cString: strerror(errno)))
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> RedisStreamStep {
        while true {
            let count = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return .done(count) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock(wantsWrite: true) }
            return .failed(String(cString: strerror(errno)))
        }
    }

    var hasBufferedBytes: Bool { false }
}

@available(*, unavailable)
extension RedisPlainStream: Sendable {}
