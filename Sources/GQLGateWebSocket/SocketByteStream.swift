package import GQLGateEventLoop
#if canImport(Glibc)
import Glibc
#endif

/// A `ByteStream` over a plain socket, such as one libmicrohttpd
/// upgraded. Switches the socket to non-blocking and sets `TCP_NODELAY`.
///
/// wslay writes a frame's header and its payload in two calls, the header
/// marked `more`. Rather than a system call for each, the header is held
/// back and leaves with the payload in one `sendmsg` (so a fanned-out event
/// costs one system call per client, not two).
package final class SocketByteStream: ByteStream {
    /// The most bytes held back: a frame header is at most 14.
    static let maxHeldBytes = 14

    package let fileDescriptor: Int32
    private let closeAction: () -> Void
    /// Bytes reported written but not yet sent: they go before any later bytes.
    /// `@exclusivity(unchecked)`: touched twice a frame, by its connection's loop only.
    @exclusivity(unchecked) private var held: [UInt8] = []

    /// - Parameters:
    ///   - fileDescriptor: a connected stream socket.
    ///   - close: how to close it. For a socket libmicrohttpd upgraded this must
    ///     be its upgrade action (`UpgradedSocket.close()`), never `close(2)`.
    package init(fileDescriptor: Int32, close: @escaping () -> Void) {
        self.fileDescriptor = fileDescriptor
        closeAction = close
        let flags = fcntl(fileDescriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(fileDescriptor, F_SETFL, flags | O_NONBLOCK) }
        var noDelay: Int32 = 1  // fails harmlessly on non-TCP sockets
        _ = setsockopt(fileDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
    }

    /// A byte stream that owns `fileDescriptor` and closes it with `close(2)`.
    package convenience init(owning fileDescriptor: Int32) {
        self.init(fileDescriptor: fileDescriptor) { _ = Glibc.close(fileDescriptor) }
    }

    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> ByteStreamResult {
        while true {
            let count = recv(fileDescriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .transferred(count) }
            if count == 0 { return .endOfStream }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno)
        }
    }

    package func send(_ bytes: UnsafeRawBufferPointer, more: Bool) -> ByteStreamResult {
        if more, held.count + bytes.count <= Self.maxHeldBytes {
            held.append(contentsOf: bytes)
            return .transferred(bytes.count)
        }
        let flags = Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0)
        let heldCount = held.count
        while true {
            let count = heldCount == 0
                ? Glibc.send(fileDescriptor, bytes.baseAddress, bytes.count, flags)
                : sendHeld(then: bytes, flags: flags)
            if count < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno)
            }
            guard count >= heldCount else {
                held.removeFirst(count)
                return .wouldBlock  // none of `bytes` left; the caller offers them again
            }
            held.removeAll(keepingCapacity: true)
            return count == heldCount ? .wouldBlock : .transferred(count - heldCount)
        }
    }

    /// One `sendmsg` of the held bytes followed by `bytes`.
    private func sendHeld(then bytes: UnsafeRawBufferPointer, flags: Int32) -> Int {
        held.withUnsafeMutableBytes { heldBytes in
            // A homogeneous tuple is laid out like a C array: two iovecs without a heap allocation.
            var vectors = (
                iovec(iov_base: heldBytes.baseAddress, iov_len: heldBytes.count),
                iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
            )
            return withUnsafeMutablePointer(to: &vectors) { pair in
                pair.withMemoryRebound(to: iovec.self, capacity: 2) { vectors in
                    var message = msghdr()
                    message.msg_iov = vectors
                    message.msg_iovlen = 2
                    return sendmsg(fileDescriptor, &message, flags)
                }
            }
        }
    }

    package func close() {
        closeAction()
    }
}
