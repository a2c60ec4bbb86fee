import FuzzerSupport
import Dispatch
import GQLGateEventLoop
import GQLGateWebSocket
#if canImport(Glibc)
import Glibc

#endif

/// The loop every fuzzed connection runs on, as a gateway loop runs client sockets.
private let loop = EventLoop()

/// One input: any bytes as what a client sends on an upgraded socket,
/// then the end of its stream. The server-side connection reads them
/// through wslay on its loop, echoes every message it gets, and must close
/// (reporting the close once) without crashing or hanging.
private func fuzzWebSocketFrames(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var fds: [Int32] = [0, 0]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
    var buffer = Int32(1 << 20)
    setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
    setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
    var offset = 0
    while let data, offset < count {
        let written = send(fds[1], data + offset, count - offset, Int32(MSG_NOSIGNAL))
        precondition(written > 0, "the fuzz input does not fit the socket buffer (run with -max_len=65536)")
        offset += written
    }
    shutdown(fds[1], Int32(SHUT_WR))

    let echo = Echo()
    let configuration = WebSocketConfiguration(maxMessageBytes: 16 << 10, maxSendBufferBytes: 64 << 10, closeTimeout: .milliseconds(100))
    let serverEnd = fds[0]
    loop.execute {
        let connection = WebSocketConnection(role: .server, transport: SocketByteStream(owning: serverEnd), loop: loop, configuration: configuration)
        echo.connection = connection
        connection.delegate = echo
        connection.start()
    }
    echo.closed.wait()
    close(fds[1])
    return 0
}

/// Echoes each message and signals the close. Touched on the loop only, but
/// for `closed`, which the fuzzing thread waits on.
private final class Echo: WebSocketConnectionDelegate, @unchecked Sendable {
    let closed = DispatchSemaphore(value: 0)
    var connection: WebSocketConnection?
    private var closes = 0

    func webSocket(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        try? connection.send(message)
    }

    func webSocket(_ connection: WebSocketConnection, didCloseWith code: UInt16, reason: String) {
        closes += 1
        precondition(closes == 1, "the close was reported twice")
        self.connection = nil
        closed.signal()
    }
}

/// Runs libFuzzer on `fuzzWebSocketFrames`.
@main
enum WebSocketFramesFuzzer {
    static func main() {
        runFuzzer { fuzzWebSocketFrames($0, $1) }
    }
}
