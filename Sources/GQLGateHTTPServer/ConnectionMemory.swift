import GQLGateCore

/// libmicrohttpd's memory pool of one connection (`connectionMemoryBytes`),
/// which a request's header block and its answer's header block share: what
/// a request takes of it, whether it leaves the answer enough, and an
/// answer's header fields cut down to the room left.
///
/// Measured on libmicrohttpd 0.9.75: the request line and header lines stay
/// in the pool as received; every header field, cookie and query parameter
/// takes a record of `recordBytes` besides; a `Cookie` field's value is
/// copied once more. The answer's header block is written into what is left
/// when the answer is queued; when it does not fit, libmicrohttpd closes the
/// connection without a byte of answer, whatever the request has done.
struct ConnectionMemory: Equatable {
    /// libmicrohttpd's record per header field, cookie and query parameter (64-bit).
    static let recordBytes = 64
    /// What libmicrohttpd adds to an answer's header block: status line,
    /// `Date`, `Content-Length` or `Transfer-Encoding`, `Connection`, the
    /// empty line (at most 143 bytes), with room to spare.
    static let answerOverheadBytes = 192

    /// The pool's size.
    let poolBytes: Int

    /// The room every request must leave for its answer's header block
    /// (`answerOverheadBytes` included): an eighth of the pool, at most 2 KiB.
    var answerReserve: Int { min(poolBytes / 8, 2048) }

    /// Whether a request taking `requestBytes` leaves the reserve; one that does
    /// not is refused before anything is done for it.
    func admits(requestBytes: Int) -> Bool {
        poolBytes - requestBytes >= answerReserve
    }

    /// The bytes an answer's header fields may take after a request of `requestBytes`.
    func answerRoom(requestBytes: Int) -> Int {
        poolBytes - requestBytes - Self.answerOverheadBytes
    }

    /// The pool a request takes: its header block as received (request line,
    /// header lines, empty line), `records` records (header fields, cookies,
    /// query parameters, and one the server may add: `Connection: close`), and
    /// the copy of its cookies.
    static func requestBytes(headerBlock: Int, records: Int, cookieBytes: Int) -> Int {
        headerBlock + (records + 1) * recordBytes + (cookieBytes > 0 ? cookieBytes + 1 : 0)
    }

    /// The bytes `headers` take in an answer's header block (`name: value` and CRLF each).
    static func headerBytes(_ headers: HTTPHeaders) -> Int {
        headers.withFields { fields in fields.reduce(0) { $0 + lineBytes($1) } }
    }

    /// `headers` when they fit in `room` bytes, else without their largest
    /// fields, as many as needed: those that say how to read the body
    /// (`Content-Type`, `Content-Encoding`) and `X-Request-Id` go last.
    /// Returns the names dropped, in the order received.
    static func fitting(_ headers: HTTPHeaders, into room: Int) -> (headers: HTTPHeaders, dropped: [String]) {
        var excess = headerBytes(headers) - room
        guard excess > 0 else { return (headers, []) }
        let order = headers.fields.indices.sorted { a, b in
            let (fieldA, fieldB) = (headers.fields[a], headers.fields[b])
            let (keptA, keptB) = (isKeptLongest(fieldA.name), isKeptLongest(fieldB.name))
            if keptA != keptB { return keptB }
            return lineBytes(fieldA) > lineBytes(fieldB)
        }
        var dropped = Set<Int>()
        for index in order where excess > 0 {
            dropped.insert(index)
            excess -= lineBytes(headers.fields[index])
        }
        let kept = headers.fields.indices.filter { !dropped.contains($0) }.map { headers.fields[$0] }
        let droppedNames = dropped.sorted().map { headers.fields[$0].name }
        return (HTTPHeaders(kept), droppedNames)
    }

    private static func lineBytes(_ field: HTTPHeaders.Field) -> Int {
        field.name.utf8.count + field.value.utf8.count + 4
    }

    private static func isKeptLongest(_ name: String) -> Bool {
        name.equalsIgnoringASCIICase("content-type") || name.equalsIgnoringASCIICase("content-encoding")
            || name.equalsIgnoringASCIICase("x-request-id")
    }
}

/// The extent of a request's header block in libmicrohttpd's read buffer,
/// from the fields' addresses (libmicrohttpd parses the request line and
/// header lines in place), and the sum of their lengths, which is used
/// instead when the addresses do not look like one block.
struct HeaderBlockExtent {
    private var lowest = UInt.max
    private var highest: UInt = 0
    private var summed = 0
    /// The `Cookie` fields' value bytes.
    private(set) var cookieBytes = 0

    /// Notes the request line's method and path.
    mutating func noteRequestLine(method: UnsafeRawBufferPointer, path: UnsafeRawBufferPointer) {
        note(method)
        note(path)
        summed += method.count + path.count + 12  // " ", " HTTP/1.1", CRLF
    }

    /// Notes one header field.
    mutating func noteField(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        note(name)
        note(value)
        summed += name.count + value.count + 4  // ": ", CRLF
        if name.count == 6, Self.isCookie(name) { cookieBytes += value.count }
    }

    /// The header block's size: the extent plus the last line's end and the
    /// empty line, or the sum of the lengths when that is more or the extent
    /// is past `limit` (the addresses are not one block).
    func bytes(limit: Int) -> Int {
        let total = summed + 2
        guard lowest <= highest, highest - lowest <= UInt(limit) else { return total }
        return max(Int(highest - lowest) + 4, total)
    }

    private mutating func note(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        let address = UInt(bitPattern: start)
        lowest = min(lowest, address)
        highest = max(highest, address + UInt(bytes.count))
    }

    private static func isCookie(_ name: UnsafeRawBufferPointer) -> Bool {
        zip(name, "cookie".utf8).allSatisfy { $0 | 0x20 == $1 }
    }
}
