import GQLGateCore
import GQLGateEventLoop
@testable import GQLGateWebSocket
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Frame-level behaviour of `WebSocketConnection`: hand-written frames on one
/// end of a socketpair, the connection on the other (the groups Autobahn's
/// fuzzing suites cover, as our own cases).
@Suite(.timeLimit(.minutes(1))) final class WebSocketConnectionTests {
    let loop = EventLoop()

    deinit {
        loop.shutdownAndWait()
    }

    func server(_ configuration: WebSocketConfiguration = WebSocketConfiguration()) async -> SocketPairHarness {
        let harness = SocketPairHarness(role: .server, configuration: configuration, loop: loop)
        await harness.start()
        return harness
    }

    @Test func reassemblesATextMessageSentInThreeFragments() async {
        let ws = await server()
        ws.write(frame(1, Array("Hel".utf8), fin: false) + frame(0, Array("lo ".utf8), fin: false) + frame(0, Array("world".utf8)))
        #expect(await ws.recorder.next() == .message(.text("Hello world")))
    }

    @Test func answersAPingBetweenFragmentsAndStillDeliversTheWholeMessage() async {
        let ws = await server()
        ws.write(frame(2, [1, 2], fin: false) + frame(9, Array("are you there".utf8)) + frame(0, [3]))
        #expect(ws.readFrame() == Frame(fin: true, opcode: 10, masked: false, payload: Array("are you there".utf8)))
        #expect(await ws.recorder.next() == .message(.binary(Bytes([1, 2, 3]))))
    }

    @Test func acceptsACodePointSplitAcrossFragments() async {
        let ws = await server()
        ws.write(frame(1, [0x61, 0xE2, 0x82], fin: false) + frame(0, [0xAC]))
        #expect(await ws.recorder.next() == .message(.text("a€")))
    }

    @Test func closesWith1009OnAMessageOverTheLimit() async {
        let ws = await server(WebSocketConfiguration(maxMessageBytes: 16))
        ws.write(frame(1, Array("0123456789".utf8), fin: false) + frame(0, Array("0123456789".utf8)))
        #expect(ws.readFrame()?.closeCode == 1009)
        #expect(await ws.recorder.next() == .closed(code: 1009, reason: ""))
        #expect(ws.readsEndOfStream())
    }

    @Test func closesWith1009OnAFrameHeaderAnnouncingTooMuch() async {
        let ws = await server(WebSocketConfiguration(maxMessageBytes: 1024))
        ws.write(frame(2, [UInt8](repeating: 1, count: 16), declaredLength: 1 << 20))
        #expect(ws.readFrame()?.closeCode == 1009)
        #expect(await ws.recorder.next() == .closed(code: 1009, reason: ""))
    }

    @Test func closesWith1007OnInvalidUTF8() async {
        let ws = await server()
        ws.write(frame(1, [0x61, 0xC3, 0x28]))
        #expect(ws.readFrame()?.closeCode == 1007)
        #expect(await ws.recorder.next() == .closed(code: 1007, reason: ""))
    }

    @Test func closesWith1007OnInvalidUTF8SplitAcrossFragments() async {
        let ws = await server()
        ws.write(frame(1, [0x61, 0xE2, 0x82], fin: false) + frame(0, [0x28, 0x62]))
        #expect(ws.readFrame()?.closeCode == 1007)
        #expect(await ws.recorder.next() == .closed(code: 1007, reason: ""))
    }

    @Test func closesWith1007OnATextMessageEndingInsideACodePoint() async {
        let ws = await server()
        ws.write(frame(1, [0x61, 0xE2], fin: false) + frame(0, [0x82]))
        #expect(ws.readFrame()?.closeCode == 1007)
    }

    @Test func serverClosesWith1002OnAnUnmaskedFrame() async {
        let ws = await server()
        ws.write(frame(1, Array("hi".utf8), masked: false))
        #expect(ws.readFrame()?.closeCode == 1002)
        #expect(await ws.recorder.next() == .closed(code: 1002, reason: ""))
    }

    @Test func clientClosesWith1002OnAMaskedFrame() async {
        let ws = SocketPairHarness(role: .client, loop: loop)
        await ws.start()
        ws.write(frame(1, Array("hi".utf8), masked: true))
        let close = ws.readFrame()
        #expect(close?.closeCode == 1002)
        #expect(close?.masked == true)
        #expect(await ws.recorder.next() == .closed(code: 1002, reason: ""))
    }

    @Test(arguments: [
        frame(0, Array("x".utf8)),                       // continuation with no message open
        frame(1, [1], fin: false) + frame(1, [2]),       // new data frame inside a message
        frame(3, []),                                    // reserved opcode
        [0xC1, 0x80, 0, 0, 0, 0],                        // RSV1 without an extension
        frame(8, closePayload(1005)),                    // close code never sent on the wire
        frame(8, closePayload(999)),                     // close code below the valid range
        frame(9, [], fin: false),                        // fragmented control frame
        frame(8, closePayload(1000), fin: false),        // fragmented close
        frame(9, [UInt8](repeating: 0, count: 126)),     // control frame over 125 bytes
        frame(11, [UInt8](repeating: 0, count: 126)),    // reserved control opcode over 125 bytes
        frame(8, [0x03]),                                // one-byte close payload
        [0x82, 0xFE, 0, 2, 1, 2, 3, 4, 5, 6],            // 16-bit length for 2 bytes
        [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 3, 4, 5, 6],  // 64-bit length for 2 bytes
        [0x82, 0xFF, 0x80, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4],     // 64-bit length with the top bit set
    ])
    func closesWith1002OnProtocolErrors(bytes: [UInt8]) async {
        let ws = await server()
        ws.write(bytes)
        #expect(ws.readFrame()?.closeCode == 1002)
        #expect(await ws.recorder.next() == .closed(code: 1002, reason: ""))
        #expect(ws.readsEndOfStream())
    }

    @Test func messagesBeforeAMalformedHeaderAreDeliveredAndNoneAfterIt() async {
        let ws = await server()
        ws.write(frame(1, Array("first".utf8)) + frame(9, [], fin: false) + frame(1, Array("never".utf8)))
        var events = ws.recorder.events.makeAsyncIterator()
        #expect(await events.next() == .message(.text("first")))
        #expect(await events.next() == .closed(code: 1002, reason: ""))
        #expect(ws.readFrame()?.closeCode == 1002)
    }

    @Test func closesWith1002OnAMalformedHeaderReadAheadByTheHandshake() async {
        var fds: [Int32] = [0, 0]
        _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        defer { close(fds[1]) }
        let recorder = EventRecorder()
        let connection = WebSocketConnection(role: .server, transport: SocketByteStream(owning: fds[0]), loop: loop,
                                             initialBytes: frame(8, [0x03]))
        await withTaskExecutorPreference(loop) {
            connection.delegate = recorder
            connection.start()
        }
        #expect(await recorder.next() == .closed(code: 1002, reason: ""))
    }

    @Test func echoesThePeersCloseAndClosesTheTransport() async {
        let ws = await server()
        ws.write(frame(8, closePayload(4403, "forbidden")))
        #expect(ws.readFrame() == Frame(fin: true, opcode: 8, masked: false, payload: closePayload(4403, "forbidden")))
        #expect(ws.readsEndOfStream())
        #expect(await ws.recorder.next() == .closed(code: 4403, reason: "forbidden"))
    }

    @Test func localCloseWaitsForThePeersAnswer() async throws {
        let ws = await server()
        await ws.onLoop { $0.close(code: 1001, reason: "shutting down") }
        #expect(ws.readFrame() == Frame(fin: true, opcode: 8, masked: false, payload: closePayload(1001, "shutting down")))
        #expect(await ws.onLoop { $0.state } == .closing)
        await #expect(throws: WebSocketError.self) { try await ws.onLoop { try $0.send(.text("late")) } }
        ws.write(frame(8, closePayload(1001)))
        #expect(await ws.recorder.next() == .closed(code: 1001, reason: ""))
        #expect(ws.readsEndOfStream())
    }

    @Test func aCloseAskedForWhileMessagesAreQueuedFollowsThem() async {
        let ws = SocketPairHarness(role: .server, loop: loop)
        let delegate = AnswerThenClose(recorder: ws.recorder)
        await ws.onLoop { connection in
            connection.delegate = delegate
            connection.start()
        }
        ws.write(frame(1, Array("init".utf8)))
        #expect(ws.readFrame() == Frame(fin: true, opcode: 1, masked: false, payload: Array("refused".utf8)))
        #expect(ws.readFrame() == Frame(fin: true, opcode: 8, masked: false, payload: closePayload(4403, "Forbidden")))
        ws.write(frame(8, closePayload(4403)))
        #expect(await ws.recorder.next() == .closed(code: 4403, reason: ""))
        withExtendedLifetime(delegate) {}
    }

    @Test func closeHandshakeHasADeadline() async {
        let ws = await server(WebSocketConfiguration(closeTimeout: .milliseconds(100)))
        await ws.onLoop { $0.close(code: 1000) }
        #expect(ws.readFrame()?.closeCode == 1000)
        #expect(await ws.recorder.next() == .closed(code: 1000, reason: ""))
        #expect(ws.readsEndOfStream())
    }

    @Test func reportsAbnormalClosureWhenThePeerVanishes() async {
        let ws = await server()
        ws.closePeer()
        #expect(await ws.recorder.next() == .closed(code: 1006, reason: ""))
    }

    @Test func sendsTextAndBinaryUnmaskedFromTheServerAndMaskedFromTheClient() async throws {
        let server = await server()
        try await server.onLoop { try $0.send(.text("héllo")); try $0.send(.binary(Bytes([9, 8, 7]))) }
        #expect(server.readFrame() == Frame(fin: true, opcode: 1, masked: false, payload: Array("héllo".utf8)))
        #expect(server.readFrame() == Frame(fin: true, opcode: 2, masked: false, payload: [9, 8, 7]))
        let client = SocketPairHarness(role: .client, loop: loop)
        await client.start()
        try await client.onLoop { try $0.send(.text("up")) }
        #expect(client.readFrame() == Frame(fin: true, opcode: 1, masked: true, payload: Array("up".utf8)))
    }

    @Test func closesWith1008WhenThePeerDoesNotReadAndTheSendBufferOverflows() async throws {
        let ws = await server(WebSocketConfiguration(maxSendBufferBytes: 256 * 1024, closeTimeout: .milliseconds(100)))
        let chunk = Bytes([UInt8](repeating: 0x5A, count: 32 * 1024))
        let outcome: (sent: Int, error: WebSocketError?) = await ws.onLoop { connection in
            for sent in 0..<10_000 {
                do {
                    try connection.send(.binary(chunk))
                } catch {
                    #expect(connection.bufferedBytes <= 256 * 1024 + 125)  // the limit plus the queued close frame
                    return (sent, error as? WebSocketError)
                }
            }
            return (10_000, nil)
        }
        #expect(outcome.error?.kind == .sendBufferFull)
        #expect(outcome.sent < 10_000)
        #expect(await ws.recorder.next() == .closed(code: 1008, reason: "send buffer overflow"))
    }

    /// wslay answers every ping with a pong it queues itself; a peer that
    /// pings and never reads must meet the send buffer limit all the same,
    /// empty pongs included.
    @Test(arguments: [0, 125])
    func closesWith1008WhenPongsToAPeerThatDoesNotReadOverflowTheSendBuffer(payloadBytes: Int) async {
        let ws = await server(WebSocketConfiguration(maxSendBufferBytes: 16 * 1024, closeTimeout: .milliseconds(100)))
        let flood = [UInt8]((0..<20_000).map { _ in frame(9, [UInt8](repeating: 0x70, count: payloadBytes)) }.joined())
        let peer = ws.peer
        let writer = Task.detached { writeUntilRefused(peer, flood) }
        #expect(await ws.recorder.next() == .closed(code: 1008, reason: "send buffer overflow"))
        await writer.value
    }

    @Test func keepAliveClosesASilentPeerWith1011() async {
        let ws = await server(WebSocketConfiguration(pingInterval: .milliseconds(50), pongTimeout: .milliseconds(100)))
        #expect(ws.readFrame()?.opcode == 9)
        #expect(await ws.recorder.next() == .closed(code: 1011, reason: "keep-alive ping unanswered"))
        #expect(ws.readFrame()?.closeCode == 1011)
        #expect(ws.readsEndOfStream())
    }

    @Test func keepAliveKeepsAnAnsweringPeer() async throws {
        // Each ping comes only after the last one's pong was taken, so three pings prove the pongs count;
        // the long pong timeout keeps a test thread slowed by a loaded machine from being taken for a dead peer
        // (a sanitizer run of every suite at once has kept this test from resuming for over 5 s).
        let ws = await server(WebSocketConfiguration(pingInterval: .milliseconds(30), pongTimeout: .seconds(60)))
        for _ in 0..<3 {
            let ping = try #require(ws.readFrame())
            #expect(ping.opcode == 9)
            ws.write(frame(10, ping.payload))
        }
        #expect(await ws.onLoop { $0.state } == .open)
    }

    @Test func framesBytesReadAheadByTheHandshakeFirst() async {
        var fds: [Int32] = [0, 0]
        _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        defer { close(fds[1]) }
        let recorder = EventRecorder()
        let first = frame(1, Array("early".utf8))
        let connection = WebSocketConnection(role: .server, transport: SocketByteStream(owning: fds[0]), loop: loop,
                                             initialBytes: first + Array(frame(1, Array("bird".utf8)).prefix(3)))
        let rest = Array(frame(1, Array("bird".utf8)).dropFirst(3))
        _ = rest.withUnsafeBytes { send(fds[1], $0.baseAddress, $0.count, 0) }
        await withTaskExecutorPreference(loop) {
            connection.delegate = recorder
            connection.start()
        }
        var events = recorder.events.makeAsyncIterator()
        #expect(await events.next() == .message(.text("early")))
        #expect(await events.next() == .message(.text("bird")))
    }
}

/// Answers the first message with "refused" and closes 4403 from inside the
/// callback, while the connection is still processing what it read.
private final class AnswerThenClose: WebSocketConnectionDelegate, Sendable {
    let recorder: EventRecorder

    init(recorder: EventRecorder) {
        self.recorder = recorder
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        try? connection.send(.text("refused"))
        connection.close(code: 4403, reason: "Forbidden")
    }

    func webSocket(_ connection: WebSocketConnection, didCloseWith code: UInt16, reason: String) {
        recorder.webSocket(connection, didCloseWith: code, reason: reason)
    }
}

/// Writes `bytes` to `socket` until done or refused (the other end closed).
private func writeUntilRefused(_ socket: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard count > 0 else { return }
        offset += count
    }
}
