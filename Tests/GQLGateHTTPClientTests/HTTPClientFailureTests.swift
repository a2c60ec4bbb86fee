@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How the client reports upstreams that give no answer at all, or none it can pass on.
@Suite struct HTTPClientFailureTests {
    @Test(arguments: [
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nnot http any more",
        "HTTP/1.1 600 Unknown\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    ])
    func anAnswerWithoutAFinalStatusFailedAfterSend(answer: String) async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let peer = try CannedHTTPPeer(answers: [Array(answer.utf8)])
        defer { peer.close() }
        do {
            let answer = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(peer.port)/graphql", method: .post))
            Issue.record("passed on as an answer: \(answer.status)")
        } catch let error as HTTPClientError {
            #expect(error.kind == .failedAfterSend)
            #expect(error.message.hasPrefix("the upstream answered "))
        }
    }

    @Test func interimAnswersArePassedOverForTheFinalOne() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let final = CannedHTTPPeer.answer(["Content-Type: application/json"], body: Array("{}".utf8))
        let peer = try CannedHTTPPeer(answers: [Array("HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n".utf8) + final])
        defer { peer.close() }
        let answer = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(peer.port)/graphql", method: .post))
        #expect(answer.status == 200)
        #expect(answer.headers["link"] == nil)
        #expect(answer.body.array == Array("{}".utf8))
    }

    @Test func refusedConnectionsAreNotReached() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let refusing = try RudeListener(listening: false)
        defer { refusing.close() }
        let port = refusing.port
        let started = GatewayClock.system.monotonicNanoseconds()
        do {
            _ = try await client.execute(HTTPClientRequest(
                url: "http://127.0.0.1:\(port)/graphql", method: .post, timeout: .seconds(240), connectTimeout: .seconds(120)))
            Issue.record("a closed port answered")
        } catch let error as HTTPClientError {
            #expect(error.kind == .notReached)
            #expect(error.code == 7)
        }
        // Refused at once, not after the 120 s connect timeout (a loaded machine, under a
        // sanitizer, took 12 s to get there).
        #expect(GatewayClock.system.monotonicNanoseconds() - started < 60_000_000_000)
    }

    @Test func aPeerThatClosesWithoutAnsweringFailedAfterSend() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let listener = try RudeListener()
        defer { listener.close() }
        let task = Task { try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(listener.port)/", method: .post)) }
        listener.acceptReadAndClose()
        do {
            _ = try await task.value
            Issue.record("a peer that closed produced an answer")
        } catch let error as HTTPClientError {
            #expect(error.kind == .failedAfterSend)
        }
    }

    @Test func aCallCancelledBeforeItStartsEndsInsteadOfWaitingForever() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let listener = try RudeListener()
        defer { listener.close() }
        let outcome = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(listener.port)/", method: .post))
                return "answered"
            } catch let error as HTTPClientError {
                return "\(error.kind)"
            } catch {
                return "\(error)"
            }
        }.value
        #expect(outcome == "cancelled")
    }

    @Test func callsFromOutsideTheLoopsAreServedByALoop() async throws {
        let group = EventLoopGroup(count: 2)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let refusing = try RudeListener(listening: false)
        defer { refusing.close() }
        let port = refusing.port
        let outcomes = await withTaskGroup(of: Bool.self) { tasks in
            for _ in 0..<20 {
                tasks.addTask {
                    do {
                        _ = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/", method: .get))
                        return false
                    } catch { return (error as? HTTPClientError)?.kind == .notReached }
                }
            }
            return await tasks.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: true, count: 20))
    }
}

/// A TCP listener that reads a request and closes without answering; with
/// `listening: false`, a port that refuses every connection (bound, not
/// listening, and held until `close`, so no other socket can take it meanwhile).
final class RudeListener: @unchecked Sendable {
    let fd: Int32
    let port: UInt16

    init(listening: Bool = true) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, !listening || listen(fd, 8) == 0 else { throw SocketFailure() }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
    }

    func acceptReadAndClose() {
        let connection = accept(fd, nil, nil)
        guard connection >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = read(connection, &buffer, buffer.count)
        Glibc.close(connection)
    }

    func close() {
        Glibc.close(fd)
    }

    struct SocketFailure: Error {}
}
