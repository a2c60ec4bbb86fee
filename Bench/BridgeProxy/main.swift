import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import GQLGateHTTPServer
import GQLGatePipeline
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `make bench-instructions`' SB row: the floor of gqlgate's stack under its
/// pipeline. libmicrohttpd's server thread takes each request, a task on a
/// gateway loop sends its body upstream through `HTTPClient` (libcurl's multi
/// handle on that loop), and the answer goes back through `ServerRequest.respond`:
/// what `scripts/bench/bare-proxy.c` (B) does, through gqlgate's own wrappers
/// and Swift concurrency, with no GraphQL, no stage, no record and no log.
/// With `--gateway-head` (the SBH row) each upstream request also carries the
/// fields every one of gqlgate's carries, `Accept` and a fresh `X-Request-Id`,
/// so that libcurl writes a request head of the same size as G's.
final class BridgeProxy: HTTPServerDelegate {
    private let client: HTTPClient
    private let upstream: String
    private let sendsGatewayHead: Bool
    private let sent = Atomic<UInt64>(0)

    init(client: HTTPClient, upstream: String, sendsGatewayHead: Bool) {
        self.client = client
        self.upstream = upstream
        self.sendsGatewayHead = sendsGatewayHead
    }

    func answer(_ request: ServerRequest) -> ServerAnswer {
        .later { [self] in
            Task(executorPreference: client.group.next()) { request.respond(await self.forward(request)) }
        }
    }

    private func forward(_ request: ServerRequest) async -> ServerResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if sendsGatewayHead {
            headers.add(name: "Accept", value: Operation.gatewayAccept)
            headers.add(name: "X-Request-Id", value: requestID())
        }
        let sent = HTTPClientRequest(url: upstream, method: .post, headers: headers, body: request.body, acceptsCompression: false)
        do {
            let answer = try await client.execute(sent)
            return ServerResponse(status: answer.status, headers: answer.headers, body: answer.body)
        } catch {
            return ServerResponse(status: 502, headers: ["Content-Type": "text/plain"], body: Bytes("the upstream failed: \(error)"))
        }
    }

    /// The count of requests sent, in 32 hex digits: as long as gqlgate's request ids.
    private func requestID() -> String {
        let count = sent.add(1, ordering: .relaxed).newValue
        return withUnsafeBytes(of: (UInt64(0), count.bigEndian)) { $0.lowercaseHex }
    }

    func payloadTooLarge(_ request: ServerRequest) -> ServerResponse {
        ServerResponse(status: 413)
    }
}

/// Writes `message` to stderr and exits with `code`.
func fail(_ message: String, code: Int32) -> Never {
    var line = message + "\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(code)
}

let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count), let port = UInt16(arguments[1]), arguments.count == 3 || arguments[3] == "--gateway-head" else {
    fail("usage: BenchBridgeProxy PORT UPSTREAM_URL [--gateway-head]", code: 2)
}
// One loop, as gqlgate has on two cores (`server.loops: auto` is the cores less one).
let loops = EventLoopGroup(count: 1)
let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: port),
                        delegate: BridgeProxy(client: HTTPClient(group: loops), upstream: arguments[2], sendsGatewayHead: arguments.count == 4))
do {
    try server.start()
} catch {
    fail("BenchBridgeProxy: \(error)", code: 1)
}
while true { sleep(3600) }
