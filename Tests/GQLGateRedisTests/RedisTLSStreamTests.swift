#if canImport(Glibc)
import Glibc
#endif
@testable import GQLGateRedis
import Testing

/// `RedisTLSStream` and `RedisTLSCredentials` against a `redis-server` taking
/// TLS with certificates made for each test, driven with poll(2).
@Suite(.serialized) struct RedisTLSStreamTests {
    let files: TestCertificates

    init() throws { files = try TestCertificates() }

    @Test func theServerIsVerifiedByIPAddressAndByName() throws {
        let server = try tlsServer(certificate: "server")
        defer { server.stop() }
        let credentials = try files.credentials()
        #expect(try TLSTestClient(port: server.port, credentials: credentials, host: "127.0.0.1").ping() == "+PONG\r\n")
        #expect(try TLSTestClient(port: server.port, credentials: credentials, host: "localhost").ping() == "+PONG\r\n")
    }

    @Test func aCertificateForAnotherNameIsRefusedUnlessItIsTheServerName() throws {
        let server = try tlsServer(certificate: "elsewhere")
        defer { server.stop() }
        let client = try TLSTestClient(port: server.port, credentials: try files.credentials(), host: "127.0.0.1")
        let error = #expect(throws: StreamStopped.self) { try client.ping() }
        #expect(error?.description.contains("handshake failed: Error in the certificate verification.") == true)
        #expect(error?.description.contains("does not match") == true)
        let named = try files.credentials(serverName: "redis.example")
        #expect(try TLSTestClient(port: server.port, credentials: named, host: "127.0.0.1").ping() == "+PONG\r\n")
    }

    @Test func aServerCertificateFromAnotherCAIsRefused() throws {
        let server = try tlsServer(certificate: "server")
        defer { server.stop() }
        let client = try TLSTestClient(port: server.port, credentials: try files.credentials(ca: "stranger-ca"), host: "127.0.0.1")
        let error = #expect(throws: StreamStopped.self) { try client.ping() }
        #expect(error?.description.contains("The certificate issuer is unknown") == true)
    }

    @Test func aServerThatAsksForAClientCertificateGetsOne() throws {
        let server = try tlsServer(certificate: "server", authenticatesClients: true)
        defer { server.stop() }
        let withCertificate = try files.credentials(certificate: "client")
        #expect(try TLSTestClient(port: server.port, credentials: withCertificate, host: "127.0.0.1").ping() == "+PONG\r\n")
        let without = try TLSTestClient(port: server.port, credentials: try files.credentials(), host: "127.0.0.1")
        let error = #expect(throws: StreamStopped.self) { try without.ping() }
        #expect(error?.description.contains("A TLS fatal alert has been received.") == true)
    }

    @Test func filesThatCannotBeUsedAreNamed() throws {
        let missing = files.path("missing.crt")
        #expect(throws: RedisError.tls("cannot read CA file \(missing): No such file or directory")) {
            try RedisTLSCredentials(caFile: missing, certFile: "", keyFile: "", serverName: "")
        }
        let mismatch = #expect(throws: RedisError.self) {
            try RedisTLSCredentials(caFile: files.path("ca.crt"), certFile: files.path("client.crt"), keyFile: files.path("server.key"),
                                    serverName: "")
        }
        #expect(mismatch?.description.contains("certificate file \(files.path("client.crt")) with key file \(files.path("server.key")): ") == true)
        #expect(throws: RedisError.self) {
            try RedisTLSCredentials(caFile: files.path("ca.crt"), certFile: files.path("client.crt"), keyFile: "", serverName: "")
        }
    }

    @Test func aLargeValueRoundTripsThroughSmallSocketBuffers() throws {
        let server = try tlsServer(certificate: "server")
        defer { server.stop() }
        let client = try TLSTestClient(port: server.port, credentials: try files.credentials(), host: "127.0.0.1", socketBuffer: 4_096)
        let value = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let request = Array("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$\(value.count)\r\n".utf8) + value + Array("\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n".utf8)
        let reply = Array("+OK\r\n$\(value.count)\r\n".utf8) + value + Array("\r\n".utf8)
        try client.handshake()
        try client.write(request)
        #expect(try client.read(count: reply.count, chunk: 1_000) == reply)
        #expect(client.writesBlocked > 0)
        #expect(client.sawBufferedBytes)
    }

    /// A TLS server with `certificate` (and its key), trusting `ca.crt` for client certificates.
    private func tlsServer(certificate: String, authenticatesClients: Bool = false) throws -> RedisTestServer {
        try RedisTestServer(arguments: [
            "--tls-cert-file", files.path(certificate + ".crt"), "--tls-key-file", files.path(certificate + ".key"),
            "--tls-ca-cert-file", files.path("ca.crt"), "--tls-auth-clients", authenticatesClients ? "yes" : "no",
        ], tls: true)
    }
}

/// A throwaway CA (`ca`) and what it signed, made with openssl in a new
/// directory removed with the value: `server` (for 127.0.0.1 and localhost),
/// `elsewhere` (for redis.example only) and `client`; and `stranger-ca`, a
/// CA that signed none of them. Each as `NAME.crt` and `NAME.key` (PEM).
final class TestCertificates {
    private let directory: String

    init() throws {
        var template = Array("/tmp/gqlgate-redis-tls-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw RedisTestError("cannot make a temporary directory")
        }
        directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        try make("ca", subject: "gqlgate test CA", extensions: ["basicConstraints=critical,CA:TRUE", "keyUsage=keyCertSign"])
        try make("stranger-ca", subject: "another CA", extensions: ["basicConstraints=critical,CA:TRUE", "keyUsage=keyCertSign"])
        try make("server", subject: "localhost", extensions: ["subjectAltName=IP:127.0.0.1,DNS:localhost"], signedBy: "ca")
        try make("elsewhere", subject: "redis.example", extensions: ["subjectAltName=DNS:redis.example"], signedBy: "ca")
        try make("client", subject: "gqlgate", extensions: ["extendedKeyUsage=clientAuth"], signedBy: "ca")
    }

    deinit {
        if let entries = opendir(directory) {
            while let entry = readdir(entries) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != ".", name != ".." { unlink(path(name)) }
            }
            closedir(entries)
        }
        rmdir(directory)
    }

    func path(_ name: String) -> String { directory + "/" + name }

    /// Credentials trusting `ca`, presenting `certificate` when set.
    func credentials(ca: String = "ca", certificate: String? = nil, serverName: String = "") throws(RedisError) -> RedisTLSCredentials {
        try RedisTLSCredentials(caFile: path(ca + ".crt"), certFile: certificate.map { path($0 + ".crt") } ?? "",
                                keyFile: certificate.map { path($0 + ".key") } ?? "", serverName: serverName)
    }

    /// A P-256 key and a certificate for it valid for a day: self-signed, or signed by the CA `signer`.
    private func make(_ name: String, subject: String, extensions: [String], signedBy signer: String? = nil) throws {
        var arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                         "-subj", "/CN=" + subject, "-keyout", path(name + ".key"), "-out", path(name + ".crt")]
        arguments += extensions.flatMap { ["-addext", $0] }
        if let signer { arguments += ["-CA", path(signer + ".crt"), "-CAkey", path(signer + ".key")] }
        let pid = try spawn("/usr/bin/openssl", arguments)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard status == 0 else { throw RedisTestError("openssl could not make \(name) (status \(status))") }
    }
}

/// The stream stopped with `.failed` or `.closed` (not a timeout).
struct StreamStopped: Error, CustomStringConvertible {
    let description: String
}

/// A `RedisTLSStream` on a non-blocking socket of its own to 127.0.0.1,
/// driven the way the connection drives it: each step that would block
/// waits in poll(2) for the direction it names. Every wait is bounded: past
/// 10 seconds in all a step throws `RedisTestError`.
final class TLSTestClient {
    private let fd: Int32
    private let stream: RedisTLSStream
    private let deadline = ContinuousClock.now + .seconds(10)
    /// How many writes said `wouldBlock`.
    private(set) var writesBlocked = 0
    /// Whether a read left decrypted bytes behind (`hasBufferedBytes`).
    private(set) var sawBufferedBytes = false

    /// Connects to `port`; `socketBuffer`: the socket's send and receive buffer sizes.
    init(port: Int, credentials: RedisTLSCredentials, host: String, socketBuffer: Int32? = nil) throws {
        fd = try connectNonBlocking(port: port, socketBuffer: socketBuffer, until: deadline)
        do {
            stream = try RedisTLSStream(descriptor: fd, credentials: credentials, host: host)
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    /// Handshakes, sends PING and returns the reply's bytes as text.
    func ping() throws -> String {
        try handshake()
        try write(Array("*1\r\n$4\r\nPING\r\n".utf8))
        return String(decoding: try read(count: 7), as: UTF8.self)
    }

    /// Drives the handshake to its end.
    func handshake() throws {
        _ = try drive("handshake") { stream.handshake() }
    }

    /// Writes all of `bytes`, passing the same bytes again after `wouldBlock`.
    func write(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let offset = written
            written += try drive("write") {
                let step = bytes.withUnsafeBytes { stream.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                if case .wouldBlock = step { writesBlocked += 1 }
                return step
            }
        }
    }

    /// Reads exactly `count` bytes, at most `chunk` at a time.
    func read(count: Int, chunk: Int = 16_384) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while bytes.count < count {
            let read = try drive("read") { buffer.withUnsafeMutableBytes { stream.read(into: $0) } }
            bytes += buffer[..<read]
            if stream.hasBufferedBytes { sawBufferedBytes = true }
        }
        return bytes
    }

    /// Repeats `step` until it moves bytes (their count), waiting for the
    /// socket after `wouldBlock`; throws `StreamStopped` on `.failed` and `.closed`.
    private func drive(_ what: String, _ step: () -> RedisStreamStep) throws -> Int {
        while true {
            switch step() {
            case .done(let count): return count
            case .wouldBlock(let wantsWrite): try waitFor(fd, writable: wantsWrite, until: deadline)
            case .closed: throw StreamStopped(description: "\(what): closed")
            case .failed(let reason): throw StreamStopped(description: "\(what): \(reason)")
            }
        }
    }
}

/// A non-blocking TCP socket connected to 127.0.0.1:`port`; `socketBuffer`:
/// its send and receive buffer sizes.
private func connectNonBlocking(port: Int, socketBuffer: Int32?, until deadline: ContinuousClock.Instant) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw RedisTestError("socket: errno \(errno)") }
    do {
        if var size = socketBuffer {
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let rc = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 || errno == EINPROGRESS else { throw RedisTestError("connect: errno \(errno)") }
        try waitFor(fd, writable: true, until: deadline)
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length)
        guard failure == 0 else { throw RedisTestError("connect: errno \(failure)") }
        return fd
    } catch {
        close(fd)
        throw error
    }
}

/// Waits until `fd` is writable (or readable); throws once `deadline` passes.
private func waitFor(_ fd: Int32, writable: Bool, until deadline: ContinuousClock.Instant) throws {
    var entry = pollfd(fd: fd, events: Int16(writable ? POLLOUT : POLLIN), revents: 0)
    while true {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw RedisTestError("timed out waiting for the socket") }
        let milliseconds = Int32(left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
        if poll(&entry, 1, milliseconds) > 0 { return }
    }
}
