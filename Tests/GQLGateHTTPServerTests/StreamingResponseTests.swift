@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Streamed answers (`ServerResponse.streaming`) over loopback, read chunk by
/// chunk with a plain socket.
@Suite(.serialized, .timeLimit(.minutes(1))) struct StreamingResponseTests {
    @Test func eachWriteReachesTheClientBeforeTheNextIsMade() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let delegate = StreamingDelegate(loop: loop, bufferLimit: 1 << 20)
        let server = try startServer(delegate)
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let stream = try #require(await delegate.nextStream())
        let head = try #require(client.readHead())
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("transfer-encoding: chunked"))
        #expect(head.contains("Content-Type: text/plain"))

        // Each write is made only once the previous one arrived: nothing waits for `finish()` or for more data.
        let rounds = 50
        let started = GatewayClock.system.monotonicNanoseconds()
        for round in 0..<rounds {
            #expect(stream.body.write("event \(round)\n"))
            #expect(client.readChunk().map { String(decoding: $0, as: UTF8.self) } == "event \(round)\n")
        }
        let elapsed = Duration.nanoseconds(GatewayClock.system.monotonicNanoseconds() - started)
        // Nagle with delayed ACKs would hold each write ~40 ms: 2 s or more for 50.
        #expect(elapsed < .milliseconds(1800), "50 lock-step writes took \(elapsed): writes are held back (Nagle?)")

        stream.body.finish()
        #expect(client.readChunk() == [])
        #expect(await stream.termination() == .finished)
        #expect(!stream.body.write("late"))
        await waitUntilNoneSuspended(server)
        client.close()
        server.stop()
    }

    @Test func writesMadeOverTimeArriveInOrderAsOneBody() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let delegate = StreamingDelegate(loop: loop, bufferLimit: 1 << 20)
        let server = try startServer(delegate)
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let stream = try #require(await delegate.nextStream())
        let producer = Task(executorPreference: loop) {
            for index in 0..<10 {
                stream.body.write("part \(index);")
                try? await loop.sleep(for: .milliseconds(15))
            }
            stream.body.finish()
        }
        _ = try #require(client.readHead())
        var received: [UInt8] = []
        while let chunk = client.readChunk(), !chunk.isEmpty { received += chunk }
        await producer.value
        #expect(String(decoding: received, as: UTF8.self) == (0..<10).map { "part \($0);" }.joined())
        #expect(await stream.termination() == .finished)
        await waitUntilNoneSuspended(server)
        client.close()
        server.stop()
    }

    @Test func aClientThatLeavesStopsTheProducer() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let delegate = StreamingDelegate(loop: loop, bufferLimit: 1 << 20)
        let server = try startServer(delegate)
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let stream = try #require(await delegate.nextStream())
        let producer = Task(executorPreference: loop) { () -> Int in
            var writes = 0
            while stream.body.write("tick\n") {
                writes += 1
                try? await loop.sleep(for: .milliseconds(10))
            }
            return writes
        }
        _ = try #require(client.readHead())
        #expect(client.readChunk() != nil)
        client.close()

        #expect(await stream.termination() == .disconnected)
        let writes = await producer.value
        #expect(writes >= 1)
        await waitUntilNoneSuspended(server)
        server.stop()
    }

    @Test func aClientThatClosesAnIdleStreamEndsItWithoutAWrite() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let delegate = StreamingDelegate(loop: loop, bufferLimit: 1 << 20)
        let server = try startServer(delegate)
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let stream = try #require(await delegate.nextStream())
        #expect(stream.body.write("first\n"))
        _ = try #require(client.readHead())
        #expect(client.readChunk() != nil)
        // The connection is suspended, waiting for a write that never comes.
        client.close()

        #expect(await stream.termination() == .disconnected)
        #expect(!stream.body.write("late"))
        await waitUntilNoneSuspended(server)
        server.stop()
    }

    @Test func aClientThatDoesNotReadIsDroppedWithBoundedMemory() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let limit = 64 * 1024
        let delegate = StreamingDelegate(loop: loop, bufferLimit: limit)
        let server = try startServer(delegate)
        let client = try RawHTTPClient(port: server.port)
        client.send("GET /stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let stream = try #require(await delegate.nextStream())
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024)
        let producer = Task(executorPreference: loop) { () -> Int in
            var accepted = 0
            while stream.body.write(piece) {
                accepted += piece.count
                await Task.yield()
            }
            return accepted
        }
        let accepted = await producer.value
        // What the socket buffers hold plus the queue limit: far from unbounded.
        #expect(accepted < 64 << 20)
        #expect(await stream.termination() == .tooSlow)
        #expect(client.readsUntilClosed())
        await waitUntilNoneSuspended(server)
        client.close()
        server.stop()
    }
}

// MARK: - Support

private func startServer(_ delegate: StreamingDelegate) throws -> HTTPServer {
    let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), delegate: delegate)
    try server.start()
    return server
}

private func waitUntilNoneSuspended(_ server: HTTPServer) async {
    while server.suspendedRequests > 0 { try? await Task.sleep(for: .milliseconds(5)) }
}

/// One streamed answer the delegate made, and how it ended.
final class OpenedStream: Sendable {
    let body: StreamingBody
    private let ended: AsyncStream<StreamTermination>
    private let endedSink: AsyncStream<StreamTermination>.Continuation

    init(body: StreamingBody) {
        self.body = body
        (ended, endedSink) = AsyncStream.makeStream()
        body.onTermination { [endedSink] termination in
            endedSink.yield(termination)
            endedSink.finish()
        }
    }

    /// How the body ended, once it has.
    func termination() async -> StreamTermination? {
        var iterator = ended.makeAsyncIterator()
        return await iterator.next()
    }
}

/// Answers every request, from a loop, with a streamed `text/plain` body and
/// hands the body to the test.
final class StreamingDelegate: HTTPServerDelegate {
    let loop: EventLoop
    let bufferLimit: Int
    private let streams: AsyncStream<OpenedStream>
    private let sink: AsyncStream<OpenedStream>.Continuation

    init(loop: EventLoop, bufferLimit: Int) {
        self.loop = loop
        self.bufferLimit = bufferLimit
        (streams, sink) = AsyncStream.makeStream()
    }

    /// The next streamed answer sent.
    func nextStream() async -> OpenedStream? {
        var iterator = streams.makeAsyncIterator()
        return await iterator.next()
    }

    func answer(_ request: ServerRequest) -> ServerAnswer { .later { self.dispatch(request) } }

    private func dispatch(_ request: ServerRequest) {
        let opened = OpenedStream(body: StreamingBody(bufferLimit: bufferLimit))
        loop.execute { [sink] in
            request.respond(.streaming(headers: ["Content-Type": "text/plain"], body: opened.body))
            sink.yield(opened)
        }
    }

    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse {
        ServerResponse(status: 413)
    }
}

/// A blocking HTTP/1.1 client on a plain socket that reads a chunked body one chunk at a time.
final class RawHTTPClient {
    private let fd: Int32
    private var buffered: [UInt8] = []

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ConnectFailure() }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The status line and header fields, up to the blank line.
    func readHead() -> String? {
        guard let head = readUntil([13, 10, 13, 10]) else { return nil }
        return String(decoding: head, as: UTF8.self)
    }

    /// The next chunk's data; empty for the last chunk, nil if the connection ended first.
    func readChunk() -> [UInt8]? {
        guard let sizeLine = readUntil([13, 10]),
              let size = Int(String(decoding: sizeLine.dropLast(2), as: UTF8.self), radix: 16) else { return nil }
        guard let data = readExactly(size + 2) else { return nil }
        return Array(data.dropLast(2))
    }

    /// Reads and discards until the server closes the connection (true) or 5 s pass with nothing (false).
    func readsUntilClosed() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got > 0 { continue }
            return got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    func close() {
        Glibc.close(fd)
    }

    private func readUntil(_ terminator: [UInt8]) -> [UInt8]? {
        while true {
            if let end = find(terminator) {
                let out = Array(buffered[..<end])
                buffered.removeFirst(end)
                return out
            }
            guard fill() else { return nil }
        }
    }

    func readExactly(_ count: Int) -> [UInt8]? {
        while buffered.count < count {
            guard fill() else { return nil }
        }
        let out = Array(buffered[..<count])
        buffered.removeFirst(count)
        return out
    }

    private func find(_ terminator: [UInt8]) -> Int? {
        guard buffered.count >= terminator.count else { return nil }
        for start in 0...(buffered.count - terminator.count) where buffered[start..<start + terminator.count].elementsEqual(terminator) {
            return start + terminator.count
        }
        return nil
    }

    private func fill() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        let got = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard got > 0 else { return false }
        buffered += scratch[..<got]
        return true
    }

    struct ConnectFailure: Error {}
}
