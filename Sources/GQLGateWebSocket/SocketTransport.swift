import CGQLGateShims
#if canImport(Glibc)
import Glibc
#endif

/// A `WebSocketTransport` over a plain socket, such as one libmicrohttpd
/// upgraded. Switches the socket to non-blocking and sets `TCP_NODELAY`;
/// passes `MSG_MORE` when the connection says more bytes follow, so a frame's
/// header and payload leave in one segment.
public final class SocketTransport: WebSocketTransport {
    public let fileDescriptor: Int32
    private let closeAction: () -> Void

    /// - Parameters:
    ///   - fileDescriptor: a connected stream socket.
    ///   - close: how to close it. For a socket libmicrohttpd upgraded this must
    ///     be its upgrade action (`UpgradedSocket.close()`), never `close(2)`.
    public init(fileDescriptor: Int32, close: @escaping () -> Void) {
        self.fileDescriptor = fileDescriptor
        closeAction = close
        let flags = fcntl(fileDescriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(fileDescriptor, F_SETFL, flags | O_NONBLOCK) }
        _ = gqlgate_set_tcp_nodelay(fileDescriptor)  // fails harmlessly on non-TCP sockets
    }

    /// A transport that owns `fileDescriptor` and closes it with `close(2)`.
    public convenience init(owning fileDescriptor: Int32) {
        self.init(fileDescriptor: fileDescriptor) { _ = Glibc.close(fileDescriptor) }
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> WebSocketTransportResult {
        while true {
            let count = recv(fileDescriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .transferred(count) }
            if count == 0 { return .endOfStream }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno)
        }
    }

    public func send(_ bytes: UnsafeRawBufferPointer, more: Bool) -> WebSocketTransportResult {
        let flags = Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0)
        while true {
            let count = Glibc.send(fileDescriptor, bytes.baseAddress, bytes.count, flags)
            if count >= 0 { return count == 0 ? .wouldBlock : .transferred(count) }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno)
        }
    }

    public func close() {
        closeAction()
    }
}
