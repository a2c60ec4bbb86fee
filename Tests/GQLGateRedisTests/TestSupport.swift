#if canImport(Glibc)
import Glibc
#endif
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateRedis
import Logging
import Testing

/// The loops the suites' clients run on.
let testLoops = EventLoopGroup(count: 1)

/// A logger that drops everything.
let quietLogger = Logger(label: "gqlgate.redis.tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// A `redis-server` on a free 127.0.0.1 port, without persistence, stopped by `stop()`.
final class RedisTestServer: Sendable {
    let port: Int
    private let pid: Lock<pid_t?>
    private let extraArguments: [String]
    private let tls: Bool

    /// Starts a server and waits until it accepts connections. `tls`: the
    /// port takes TLS connections only (`arguments` then name the
    /// `--tls-cert-file` and the rest).
    init(port: Int? = nil, arguments: [String] = [], tls: Bool = false) throws {
        self.port = try port ?? freePort()
        extraArguments = arguments
        self.tls = tls
        let ports = tls ? ["--port", "0", "--tls-port", String(self.port)] : ["--port", String(self.port)]
        pid = Lock(try spawn("/usr/bin/redis-server", ports + ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"] + arguments))
        try waitUntilAccepting(port: self.port)
    }

    /// The URL of this server.
    var url: RedisURL { RedisURL(host: "127.0.0.1", port: port) }

    /// Stops the server and waits for it to exit.
    func stop() {
        guard let pid = pid.withLock({ pid in defer { pid = nil }; return pid }) else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// A new server on the same port (after `stop()`).
    func restarted() throws -> RedisTestServer {
        try RedisTestServer(port: port, arguments: extraArguments, tls: tls)
    }

    deinit { stop() }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which
/// Swift's Glibc module does not export: looked up at run time.
private let spawnCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? =
    dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self) }

/// Starts `path` with `arguments`, output to /dev/null, with the default
/// signal mask and dispositions (the test process blocks some signals, and
/// children would inherit that), and no other descriptor of this process:
/// suites run side by side, and a server holding a copy of another suite's
/// socket could keep its peer from reading end-of-stream.
func spawn(_ path: String, _ arguments: [String]) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGTERM)
    sigaddset(&defaults, SIGINT)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    if let closeFrom = spawnCloseFrom { _ = closeFrom(&actions, 3) }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid = pid_t()
    let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    guard rc == 0 else { throw RedisTestError("cannot start \(path): error \(rc)") }
    return pid
}

/// A port nothing listens on now.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw RedisTestError("cannot find a free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Polls until something accepts TCP connections on `port` (up to 10 s).
private func waitUntilAccepting(port: Int) throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        close(fd)
        if connected { return }
        usleep(20_000)
    }
    throw RedisTestError("redis-server did not start on port \(port)")
}

struct RedisTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A client of `server` whose connection is up. A client connects in the
/// background: a first command sent before that finds Redis unavailable, which
/// a loaded machine (a sanitizer run) makes likely.
func connectedClient(_ server: RedisTestServer) async -> RedisClient {
    let client = RedisClient(url: server.url, group: testLoops, logger: quietLogger)
    #expect(await eventually { (try? await client.send("PING")) == .status("PONG") })
    return client
}

/// Retries `condition` every 20 ms until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return false
}

/// The cache key of a query.
func requestKey(_ query: String, authorization: String? = nil) -> RequestKey {
    let headers: HTTPHeaders = authorization.map { ["Authorization": $0] } ?? [:]
    return RequestKey(operation: Operation(request: GraphQLRequest(query: query), clientTransport: .httpPost, headers: headers, requestID: "r"),
                      headers: KeyHeaders(scope: ["authorization"]))
}

/// An answer as `CacheExchange` stores it.
func cachedAnswer(_ body: String, storedAt: Duration = .seconds(1_000), ttl: Duration = .seconds(10),
                  tags: CacheTags = CacheTags()) -> CachedAnswer {
    CachedAnswer(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=60"], body: Bytes(body),
                 storedAt: storedAt, ttl: ttl, tags: tags)
}

/// A look-up as a short text: what it found, the body, the age in seconds.
func describe(_ lookup: ResponseCacheLookup) -> String {
    switch lookup {
    case .fresh(let answer, let age): "fresh \(answer.body.string) \(age.components.seconds)s"
    case .stale(let answer, let age, let refresh): "stale \(answer.body.string) \(age.components.seconds)s refresh=\(refresh)"
    case .expired(let answer, let age): "expired \(answer.body.string) \(age.components.seconds)s"
    case .miss: "miss"
    case .unavailable: "unavailable"
    }
}
