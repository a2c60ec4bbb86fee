import GQLGateEventLoop
import GQLGateWebSocket
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("SocketByteStream")
struct SocketByteStreamTests {
    /// A transport on one end of a Unix socketpair, and the other end.
    private struct Pair {
        let transport: SocketByteStream
        let peer: Int32

        init() {
            var fds: [Int32] = [0, 0]
            precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
            transport = SocketByteStream(owning: fds[0])
            peer = fds[1]
            let flags = fcntl(peer, F_GETFL)
            _ = fcntl(peer, F_SETFL, flags | O_NONBLOCK)
        }

        func send(_ bytes: [UInt8], more: Bool = false) -> ByteStreamResult {
            bytes.withUnsafeBytes { transport.send($0, more: more) }
        }

        /// Everything the peer can read now.
        func drain() -> [UInt8] {
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return out }
                out += buffer[..<count]
            }
        }

        func close() {
            transport.close()
            _ = Glibc.close(peer)
        }
    }

    @Test("a header marked more leaves with the payload after it, in order")
    func headerThenPayload() {
        let pair = Pair()
        defer { pair.close() }
        #expect(pair.send([0x81, 0x05], more: true) == .transferred(2))
        #expect(pair.drain().isEmpty)  // held back, not sent on its own
        #expect(pair.send(Array("hello".utf8)) == .transferred(5))
        #expect(pair.drain() == [0x81, 0x05] + Array("hello".utf8))
    }

    @Test("a held header is sent first once the socket takes bytes again, and only once")
    func heldHeaderSurvivesAFullSocket() {
        let pair = Pair()
        defer { pair.close() }
        var filler = [UInt8](repeating: 0x61, count: 4096)
        var sentFiller = 0
        while case .transferred(let count) = pair.send(filler) { sentFiller += count }
        #expect(pair.send([0x82, 0x03], more: true) == .transferred(2))
        #expect(pair.send([1, 2, 3]) == .wouldBlock)
        var received = pair.drain()
        #expect(received.count == sentFiller)
        filler = []
        #expect(pair.send([1, 2, 3]) == .transferred(3))
        received = pair.drain()
        #expect(received == [0x82, 0x03, 1, 2, 3])
    }

    @Test("bytes not marked more, and payloads too big to hold, are sent at once")
    func unheldBytes() {
        let pair = Pair()
        defer { pair.close() }
        let big = [UInt8](repeating: 7, count: 100)
        #expect(pair.send(big, more: true) == .transferred(100))
        #expect(pair.drain() == big)
    }
}
