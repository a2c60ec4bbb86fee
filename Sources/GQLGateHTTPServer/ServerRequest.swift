import CMicroHTTPD
import CMicroHTTPDShims
@_spi(GQLGateInternals) package import GQLGateCore

/// One HTTP request on the embedded server: what the client sent, and the way
/// to answer it from any thread.
///
/// `@unchecked Sendable`: the request fields are written on the server thread
/// before the delegate sees the request and are read-only afterwards; the
/// pending response sits behind a `Lock`, and libmicrohttpd's resume
/// hands it back to the server thread. The variables are
/// `@exclusivity(unchecked)`: one thread at a time, and no access overlaps
/// another, so the run-time check (about 80 instructions an access) only costs.
package final class ServerRequest: @unchecked Sendable {
    enum Phase {
        case receiving
        /// The body passed the limit: the rest is read and dropped, then answered 413.
        case discarding
        case rejected
        case dispatched
        case done
    }

    /// The request method, e.g. `GET`.
    package let method: String
    /// The path, without the query string.
    package let path: String
    /// Header fields in the order received. Read from libmicrohttpd the first
    /// time they are asked for (on the server thread: the server reads them
    /// before a request it answers later leaves it).
    package var headers: HTTPHeaders {
        if !headersCollected { collectHeaders() }
        return storedHeaders
    }
    /// URL query parameters, decoded; the value is nil for `?key` without `=`.
    package var queryItems: [(name: String, value: String?)] { storedQueryItems }
    /// The request body.
    package var body: Bytes { storedBody }
    /// The subject (RFC 4514, `CN=client,O=Example`) of the client certificate
    /// the connection presented, checked against the client CAs; nil when
    /// the server does not ask for client certificates.
    package var clientCertificateSubject: String? { storedClientCertificateSubject }
    // The public fields read through accessors of this module: an access from
    // another module would be checked at run time, the attribute notwithstanding.
    @exclusivity(unchecked) var storedHeaders = HTTPHeaders()
    @exclusivity(unchecked) var headersCollected = false
    /// Every header field's name and value bytes with four more a field, and how many fields (set as the request begins).
    @exclusivity(unchecked) var headerLineBytes = 0, headerFieldCount = 0
    @exclusivity(unchecked) var storedQueryItems: [(name: String, value: String?)] = []
    @exclusivity(unchecked) var storedBody: Bytes = .empty
    @exclusivity(unchecked) var storedClientCertificateSubject: String?
    let connection: OpaquePointer
    @exclusivity(unchecked) var phase = Phase.receiving
    @exclusivity(unchecked) var collected = ByteAccumulator()
    /// The delegate took the request: it counts among the suspended ones until libmicrohttpd is done with it.
    @exclusivity(unchecked) var wasDispatched = false
    /// The connection closes once the answer is out (framing that a proxy in front may read otherwise).
    @exclusivity(unchecked) var closesConnection = false
    /// The answer runs under the server's write timeout, to be set back to the idle timeout when it is out.
    @exclusivity(unchecked) var hasWriteTimeout = false
    /// The bytes the answer's header fields may take in the connection's memory (`ConnectionMemory`).
    @exclusivity(unchecked) var answerRoom = Int.max
    /// Set when the answer is an upgrade; taken by the upgrade handler on the server thread.
    @exclusivity(unchecked) var upgradeHandler: (@Sendable (UpgradedSocket) -> Void)?
    /// The answer is an upgrade: the connection is never back to waiting for a request.
    @exclusivity(unchecked) var upgrades = false
    /// The connection left the header and body deadlines (`ConnectionWatch`).
    @exclusivity(unchecked) var isAnswering = false
    /// Fields whatever answer the request gets carries (CORS), set by the delegate on the server thread.
    @exclusivity(unchecked) var everyAnswerFields: HTTPHeaders?
    /// Set when the answer is streamed; told on the server thread when the request is over.
    @exclusivity(unchecked) var streamingBody: StreamingBody?
    /// Where a dispatched request's answer waits for the server thread: made
    /// when the delegate takes the request (`willDispatch`), so that a request
    /// answered at once makes no lock.
    @exclusivity(unchecked) private var pending: Lock<ServerResponse?>?
    /// The server outlives its requests: it is stopped only once none is suspended.
    unowned let server: HTTPServer

    init(connection: OpaquePointer, method: String, path: String, server: HTTPServer) {
        self.connection = connection
        self.method = method
        self.path = path
        self.server = server
    }

    /// Reads the header fields into `headers`, once. Never inlined, so that
    /// the `headers` accessor, read many times a request, stays a load and a branch.
    @inline(never)
    func collectHeaders() {
        guard !headersCollected else { return }
        storedHeaders = RequestHeaderFields.collect(connection, cache: server.requestHeaders)
        headersCollected = true
    }

    /// The value of the first header field named `name` (in any case), as
    /// `headers` gives it, without reading every field when they were not
    /// read yet. On the server thread, while the delegate answers.
    package func headerValue(_ name: String) -> String? {
        headersCollected ? storedHeaders[name] : RequestHeaderFields.firstValue(connection, named: name)
    }

    /// Room enough to copy every header field's name and value with a length of four bytes before each.
    package var headerFieldRoom: Int { headerLineBytes + 4 * headerFieldCount }

    /// Calls `body` with each header field's name and value (without the
    /// whitespace around it) as the client sent them, in order. On the
    /// server thread, while the delegate answers.
    package func forEachHeaderField(_ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) {
        RequestHeaderFields.forEach(connection, body)
    }

    /// The client's IP address as text (`192.0.2.1`, `2001:db8::1`); nil
    /// when unknown. Read from the connection: call it on the server thread,
    /// while the delegate answers.
    package func clientAddress() -> String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { buffer -> String? in
            let length = gqlgate_mhd_client_address(connection, buffer.baseAddress, buffer.count)
            guard length > 0 else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: length), as: UTF8.self)
        }
    }

    /// Makes whatever answer the request gets — the delegate's, a resumed
    /// one, a refusal — carry `fields`: each replaces the answer's fields of
    /// its name, but `Vary`, a list, which is added beside the answer's.
    /// Call on the server thread, while the delegate answers.
    package func addToEveryAnswer(_ fields: HTTPHeaders) {
        everyAnswerFields = fields
    }

    /// Answers a request that the delegate took (`ServerAnswer.later`). Call exactly
    /// once, from any thread.
    package func respond(_ response: ServerResponse) {
        guard let pending else { preconditionFailure("respond(_:) on a request the delegate did not take") }
        pending.withLock { $0 = response }
        server.resume(connection)
    }

    /// Called on the server thread before the delegate takes the request.
    func willDispatch() {
        pending = Lock(nil)
    }

    func takeResponse() -> ServerResponse? {
        pending?.withLock { slot in
            defer { slot = nil }
            return slot
        }
    }
}
