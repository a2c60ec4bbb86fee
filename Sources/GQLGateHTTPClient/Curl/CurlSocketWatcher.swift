import CCurlShims
import GQLGateEventLoop

/// Forwards epoll readiness of one curl socket to `curl_multi_socket_action`.
final class CurlSocketWatcher: FileDescriptorHandler {
    let fd: Int32
    unowned let multi: CurlMulti
    /// curl has no transfer on this socket (a kept-alive connection between requests).
    var idle = false

    init(fd: Int32, multi: CurlMulti) {
        self.fd = fd
        self.multi = multi
    }

    func handleEvents(_ events: UInt32) {
        if idle {
            multi.dropIdle(fd)
            return
        }
        var flags: Int32 = 0
        if events & EventLoop.readable != 0 { flags |= gqlgate_curl_csel_in }
        if events & EventLoop.writable != 0 { flags |= gqlgate_curl_csel_out }
        if events & (EventLoop.error | EventLoop.hangUp) != 0 { flags |= gqlgate_curl_csel_err }
        multi.socketAction(fd, events: flags)
    }
}
