/// Where each open connection stands in receiving its request, and when it
/// must be done: a request's header block within `headerTimeout` of its
/// first byte, its body within `bodyTimeout` of the header block's end.
/// libmicrohttpd's own timeout starts again at every byte, so a client
/// trickling a byte at a time would hold its connection for ever.
///
/// Also the connections whose client closed its side while no answer was
/// under way: libmicrohttpd 0.9.75 misses that close when it arrives with
/// the last bytes it reads (its epoll is edge-triggered), and would keep the
/// connection until its idle timeout.
///
/// A value: the server keeps it behind a lock, tells it what libmicrohttpd
/// does (on the server threads), and sweeps it once a second on its watch
/// thread, which reads each probed socket's state from the kernel. Times are
/// monotonic nanoseconds.
struct ConnectionDeadlines {
    /// What the connection is doing.
    enum Phase: Equatable {
        /// Waiting for a request (new, or after an answer) since `since`, no byte of it seen:
        /// idle, which `server.idle_timeout` bounds.
        case awaiting(since: UInt64)
        /// A request's header block is arriving; its first byte came at `since`.
        case header(since: UInt64)
        /// The request's body is arriving; its header block ended at `since`.
        case body(since: UInt64)
        /// The request is answered or upgraded: the write timeout (or nothing) applies.
        case answering
        /// Being closed; libmicrohttpd has yet to notice.
        case closing
    }

    /// A connection whose socket the sweep reads: when it last received
    /// data (a request begun while `awaiting`) and whether the client closed it.
    struct Probe: Equatable {
        let key: UInt
        let serial: UInt64
        let fileDescriptor: Int32
        let phase: Phase
    }

    /// A connection to close now, and why.
    struct End: Equatable {
        enum Reason: Equatable {
            case lateHeader
            case lateBody
            /// The client closed its side before the request was in.
            case clientClosed
        }

        let fileDescriptor: Int32
        let reason: Reason
    }

    private struct Connection {
        let serial: UInt64
        let fileDescriptor: Int32
        var phase: Phase

        /// Moves to `next`, unless it is being closed.
        mutating func advance(to next: Phase) {
            if phase != .closing { phase = next }
        }
    }

    /// Nanoseconds a header block may take from its first byte; 0: no limit.
    let headerTimeout: UInt64
    /// Nanoseconds a body may take from the header block's end; 0: no limit.
    let bodyTimeout: UInt64
    private var connections: [UInt: Connection] = [:]
    private var serials: UInt64 = 0

    init(headerTimeout: UInt64, bodyTimeout: UInt64) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
    }

    /// Open connections.
    var count: Int { connections.count }

    /// The phase of the connection `key`, if it is open.
    func phase(of key: UInt) -> Phase? {
        connections[key]?.phase
    }

    /// A connection was accepted (`key`: its libmicrohttpd handle).
    mutating func opened(_ key: UInt, fileDescriptor: Int32, at now: UInt64) {
        serials &+= 1
        connections[key] = Connection(serial: serials, fileDescriptor: fileDescriptor, phase: .awaiting(since: now))
    }

    /// The connection closed: its descriptor may be reused from now on.
    mutating func closed(_ key: UInt) {
        connections[key] = nil
    }

    /// A request's header block is in: its body's time starts.
    mutating func headerArrived(_ key: UInt, at now: UInt64) {
        advance(key, to: .body(since: now))
    }

    /// The request's body is in (or it is answered before its body): no deadline until it is answered.
    mutating func answering(_ key: UInt) {
        advance(key, to: .answering)
    }

    /// The answer is out and the connection waits for its next request.
    mutating func answered(_ key: UInt, at now: UInt64) {
        advance(key, to: .awaiting(since: now))
    }

    /// Moves the connection `key`, if open, to `next`. Through its index: the
    /// dictionary's optional-chained `_modify` allocates its coroutine frame
    /// on the heap, three times a request.
    private mutating func advance(_ key: UInt, to next: Phase) {
        guard let index = connections.index(forKey: key) else { return }
        connections.values[index].advance(to: next)
    }

    /// The connections whose sockets the sweep reads: those waiting for a
    /// request or receiving one.
    func probes() -> [Probe] {
        connections.compactMap { key, connection in
            switch connection.phase {
            case .awaiting, .header, .body:
                return Probe(key: key, serial: connection.serial, fileDescriptor: connection.fileDescriptor, phase: connection.phase)
            case .answering, .closing:
                return nil
            }
        }
    }

    /// What the sweep read of `probe`'s socket: it last received data at
    /// `receivedAt` (after it began waiting: a request has begun, its header
    /// block's time starts), and whether the client closed its side (then
    /// the connection is to end now, returned). Ignored when the connection
    /// moved on or closed since the probe.
    mutating func probed(_ probe: Probe, receivedAt: UInt64, peerClosed: Bool) -> End? {
        guard let connection = connections[probe.key], connection.serial == probe.serial, connection.phase == probe.phase else { return nil }
        if peerClosed {
            connections[probe.key]?.phase = .closing
            return End(fileDescriptor: connection.fileDescriptor, reason: .clientClosed)
        }
        if case .awaiting(let since) = probe.phase, headerTimeout > 0, receivedAt > since + Self.receiveClockSlack {
            connections[probe.key]?.phase = .header(since: receivedAt)
        }
        return nil
    }

    /// The connections past their deadline at `now`, each marked closing.
    mutating func overdue(at now: UInt64) -> [End] {
        var late: [(key: UInt, end: End)] = []
        for (key, connection) in connections {
            switch connection.phase {
            case .header(let since) where headerTimeout > 0 && now >= since + headerTimeout:
                late.append((key, End(fileDescriptor: connection.fileDescriptor, reason: .lateHeader)))
            case .body(let since) where bodyTimeout > 0 && now >= since + bodyTimeout:
                late.append((key, End(fileDescriptor: connection.fileDescriptor, reason: .lateBody)))
            default:
                continue
            }
        }
        for (key, _) in late { connections[key]?.phase = .closing }
        return late.map(\.end)
    }

    /// How far the kernel's receive time (counted in ticks of up to 10 ms)
    /// may lie past the truth: a receive within this of the wait's start
    /// counts as before it.
    static let receiveClockSlack: UInt64 = 20_000_000
}
