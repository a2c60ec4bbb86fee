import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import GQLGateHTTPServer
import Testing

/// Drives the libmicrohttpd wrapper over loopback with the libcurl client.
@Suite(.serialized) struct HTTPServerLoopbackTests {
    @Test func answersOnTheServerThreadWithHeadersAndQueryItems() async throws {
        try await withServer(delegate: EchoDelegate()) { client, base in
            let answer = try await client.execute(HTTPClientRequest(
                url: base + "/echo?a=1&b=two%20words&flag", method: .get, headers: ["X-Custom": "yes"]))
            #expect(answer.status == 200)
            #expect(answer.headers["x-echo-method"] == "GET")
            #expect(answer.body.string == "path=/echo a=1 b=two words flag=nil custom=yes")
        }
    }

    @Test func dispatchedRequestsAreAnsweredFromAnotherThreadWithTheirBody() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        try await withServer(delegate: DeferredDelegate(loop: loop)) { client, base in
            let payload = String(repeating: "x", count: 100_000)
            let answer = try await client.execute(HTTPClientRequest(url: base + "/deferred", method: .post, body: Bytes(payload)))
            #expect(answer.status == 201)
            #expect(answer.body.count == 100_000)
            #expect(answer.body.string == payload)
        }
    }

    /// The per-connection memory pool is 16 KiB: large header fields (a 12 KiB
    /// token, a 5 KiB Cookie, which libmicrohttpd copies into the half of the
    /// pool the answer needs) still fit; a header block far past it gets 431.
    @Test func largeHeaderFieldsFitAndOversizedHeadersGet431() async throws {
        try await withServer(delegate: EchoDelegate()) { client, base in
            let token = String(repeating: "t", count: 12 * 1024)
            let large = try await client.execute(HTTPClientRequest(url: base + "/echo", method: .get, headers: ["X-Custom": token]))
            #expect(large.status == 200)
            #expect(large.body.string == "path=/echo  custom=\(token)")
            let cookie = try await client.execute(HTTPClientRequest(
                url: base + "/echo", method: .get, headers: ["Cookie": "session=" + String(repeating: "c", count: 5 * 1024)]))
            #expect(cookie.status == 200)
            let oversized = try await client.execute(HTTPClientRequest(
                url: base + "/echo", method: .get, headers: ["Cookie": "session=" + String(repeating: "c", count: 12 * 1024)]))
            #expect(oversized.status == 431)
        }
    }

    @Test func bodiesOverTheLimitGet413() async throws {
        try await withServer(delegate: EchoDelegate(), maxBodyBytes: 1024) { client, base in
            let answer = try await client.execute(HTTPClientRequest(url: base + "/echo", method: .post, body: Bytes(String(repeating: "y", count: 5000))))
            #expect(answer.status == 413)
            #expect(answer.body.string == "too large")
            let small = try await client.execute(HTTPClientRequest(url: base + "/echo", method: .post, body: Bytes("ok")))
            #expect(small.status == 200)
        }
    }

    @Test func manyConcurrentRequestsAllGetTheirOwnAnswer() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        try await withServer(delegate: DeferredDelegate(loop: loop)) { client, base in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let answer = try await client.execute(HTTPClientRequest(url: base + "/deferred", method: .post, body: Bytes("request \(i)")))
                        return answer.body.string == "request \(i)"
                    }
                }
                var matched = 0
                for try await ok in group where ok { matched += 1 }
                #expect(matched == 200)
            }
        }
    }

    @Test func slowAnswersTimeOutOnTheClient() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        try await withServer(delegate: DeferredDelegate(loop: loop, delay: .milliseconds(600))) { client, base in
            await #expect(throws: HTTPClientError.self) {
                _ = try await client.execute(HTTPClientRequest(url: base + "/deferred", method: .post, body: Bytes("slow"), timeout: .milliseconds(150)))
            }
            do {
                _ = try await client.execute(HTTPClientRequest(url: base + "/deferred", method: .post, body: Bytes("slow"), timeout: .milliseconds(150)))
            } catch let error as HTTPClientError {
                #expect(error.kind == .timedOut)
            }
            let patient = try await client.execute(HTTPClientRequest(url: base + "/deferred", method: .post, body: Bytes("patient"), timeout: .seconds(5)))
            #expect(patient.body.string == "patient")
        }
    }

    /// Quiescing straight after start, while libmicrohttpd's threads are
    /// still setting up, many times over (it used to abort the process about
    /// one time in twenty): new connections are refused from then on.
    @Test(arguments: [1, 2]) func quiescingAtOnceRefusesNewConnections(threads: Int) throws {
        for _ in 0..<200 {
            let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: threads), delegate: EchoDelegate())
            try server.start()
            defer { server.stop() }
            server.quiesce()
            #expect(throws: RawHTTPClient.ConnectFailure.self) { try RawHTTPClient(port: server.port) }
        }
    }

    /// A connection accepted before the quiesce is still answered, with `Connection: close`.
    @Test func quiescingServesOpenConnections() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), delegate: EchoDelegate())
        try server.start()
        defer { server.stop() }
        let open = try RawHTTPClient(port: server.port)
        let request = "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n"
        open.send(request)
        let first = try #require(open.readHead())
        #expect(first.hasPrefix("HTTP/1.1 200"))
        _ = open.readExactly(Self.contentLength(first))
        server.quiesce()
        open.send(request)
        let second = try #require(open.readHead())
        #expect(second.hasPrefix("HTTP/1.1 200"))
        #expect(second.lowercased().contains("connection: close"))
    }

    private static func contentLength(_ head: String) -> Int {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].filter { $0 != " " }) } ?? 0
    }

    @Test func bindsOnlyTheAddressItIsGiven() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), delegate: EchoDelegate())
        try server.start()
        defer { server.stop() }
        let taken = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: server.port), delegate: EchoDelegate())
        #expect(throws: HTTPServerError.self) { try taken.start() }
    }
}

/// Starts a server on 127.0.0.1:0 and a one-loop client, runs `body`, then waits
/// for suspended requests to finish and stops both.
func withServer(delegate: any HTTPServerDelegate, maxBodyBytes: Int = 1 << 20,
                _ body: (HTTPClient, String) async throws -> Void) async throws {
    let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, maxBodyBytes: maxBodyBytes), delegate: delegate)
    try server.start()
    let group = EventLoopGroup(count: 1)
    let client = HTTPClient(group: group)
    do {
        try await body(client, "http://127.0.0.1:\(server.port)")
    } catch {
        await drain(server)
        throw error
    }
    await drain(server)
    server.stop()
    group.shutdownAndWait()
}

private func drain(_ server: HTTPServer) async {
    while server.suspendedRequests > 0 { try? await Task.sleep(for: .milliseconds(10)) }
}

/// Answers every request at once with what it saw.
final class EchoDelegate: HTTPServerDelegate {
    func answer(_ request: ServerRequest) -> ServerAnswer {
        echo(request).map { .now($0) } ?? .later {}
    }

    private func echo(_ request: ServerRequest) -> ServerResponse? {
        let items = request.queryItems.map { "\($0.name)=\($0.value ?? "nil")" }.joined(separator: " ")
        let text = "path=\(request.path) \(items) custom=\(request.headers["x-custom"] ?? "none")"
        return ServerResponse(status: 200, headers: ["X-Echo-Method": request.method], body: Bytes(request.method == "POST" ? "posted" : text))
    }

    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse {
        ServerResponse(status: 413, body: Bytes("too large"))
    }
}

/// Takes every request and answers it later from a loop thread, echoing the body.
final class DeferredDelegate: HTTPServerDelegate {
    let loop: EventLoop
    let delay: Duration

    init(loop: EventLoop, delay: Duration = .zero) {
        self.loop = loop
        self.delay = delay
    }

    func answer(_ request: ServerRequest) -> ServerAnswer { .later { self.dispatch(request) } }

    private func dispatch(_ request: ServerRequest) {
        let delay = delay
        loop.execute { [loop] in
            loop.schedule(after: delay) {
                request.respond(ServerResponse(status: 201, body: request.body))
            }
        }
    }

    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse {
        ServerResponse(status: 413)
    }
}
