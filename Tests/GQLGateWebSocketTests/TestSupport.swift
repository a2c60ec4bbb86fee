import GQLGateCore
import GQLGateEventLoop
import GQLGateWebSocket
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a connection told its delegate.
enum ConnectionEvent: Equatable {
    case message(WebSocketMessage)
    case closed(code: UInt16, reason: String)
}

/// A delegate that streams what it is told, to be awaited in order.
final class EventRecorder: WebSocketConnectionDelegate, Sendable {
    let events: AsyncStream<ConnectionEvent>
    private let sink: AsyncStream<ConnectionEvent>.Continuation

    init() {
        (events, sink) = AsyncStream.makeStream()
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        sink.yield(.message(message))
    }

    func webSocket(_ connection: WebSocketConnection, didCloseWith code: UInt16, reason: String) {
        sink.yield(.closed(code: code, reason: reason))
        sink.finish()
    }

    /// The next event, or nil once the stream ended.
    func next() async -> ConnectionEvent? {
        var iterator = events.makeAsyncIterator()
        return await iterator.next()
    }
}

/// A `WebSocketConnection` on one end of a socketpair and the raw other end,
/// on which the test writes and reads frames by hand.
struct SocketPairHarness {
    let loop: EventLoop
    let connection: WebSocketConnection
    let recorder = EventRecorder()
    let peer: Int32

    init(role: WebSocketConnection.Role, configuration: WebSocketConfiguration = WebSocketConfiguration(), loop: EventLoop) {
        var fds: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fds[1], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.loop = loop
        peer = fds[1]
        connection = WebSocketConnection(role: role, transport: SocketByteStream(owning: fds[0]), loop: loop, configuration: configuration)
    }

    /// Sets the delegate and starts the connection on its loop.
    func start() async {
        let connection = connection, recorder = recorder
        await withTaskExecutorPreference(loop) {
            connection.delegate = recorder
            connection.start()
        }
    }

    /// Runs `body` on the connection's loop.
    func onLoop<T: Sendable>(_ body: @Sendable (WebSocketConnection) throws -> T) async rethrows -> T {
        let connection = connection
        return try await withTaskExecutorPreference(loop) { try body(connection) }
    }

    /// Writes `bytes` to the connection; a failed send (the connection closed its end) fails the test, not the process.
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else {
                Issue.record("send to the connection failed: errno \(errno)")
                return
            }
            offset += count
        }
    }

    /// Reads one frame the connection sent; nil at end of stream (or after 5 s).
    func readFrame() -> Frame? {
        guard let head = read(2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let extended = read(2) else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            guard let extended = read(8) else { return nil }
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        let masked = head[1] & 0x80 != 0
        let key = masked ? read(4) ?? [] : []
        guard var payload = length == 0 ? [] : read(length) else { return nil }
        if masked { payload = payload.enumerated().map { $0.element ^ key[$0.offset % 4] } }
        return Frame(fin: head[0] & 0x80 != 0, opcode: head[0] & 0x0F, masked: masked, payload: payload)
    }

    /// Whether the connection closed its end (reads end of stream).
    func readsEndOfStream() -> Bool {
        var byte: UInt8 = 0
        return recv(peer, &byte, 1, 0) == 0
    }

    private func read(_ count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = out[offset...].withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, 0) }
            guard got > 0 else { return nil }
            offset += got
        }
        return out
    }

    func closePeer() {
        Glibc.close(peer)
    }
}

/// A frame as read from the wire.
struct Frame: Equatable {
    var fin: Bool
    var opcode: UInt8
    var masked: Bool
    var payload: [UInt8]

    /// The close code of a close frame.
    var closeCode: UInt16? {
        opcode == 8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
    }
}

/// Builds one frame by hand; masked frames use a fixed key.
func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, declaredLength: Int? = nil) -> [UInt8] {
    var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
    let length = declaredLength ?? payload.count
    let maskBit: UInt8 = masked ? 0x80 : 0
    if length < 126 {
        out.append(maskBit | UInt8(length))
    } else if length < 65536 {
        out += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
    } else {
        out.append(maskBit | 127)
        out += (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) }
    }
    guard masked else { return out + payload }
    let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
    return out + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
}

func closePayload(_ code: UInt16, _ reason: String = "") -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
}
