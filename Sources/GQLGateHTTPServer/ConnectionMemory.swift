import GQLGateCore

/// libmicrohttpd's memory pool of one connection (`connectionMemoryBytes`),
/// which a request's header block and its answer's share: what a request
/// takes of it, the room it leaves the answer's header fields, and those
/// fields cut down to that room.
///
/// Measured on libmicrohttpd 0.9.75: the request line and header lines stay
/// in the pool as received; every header field, cookie and query parameter
/// takes a record of `recordBytes` besides; a `Cookie` field's value is
/// copied once more. The read buffer starts at half the pool, and what a
/// client pipelines after the request waits in it. The answer's header block
/// is written into what is left when the answer is queued; when it does not
/// fit, libmicrohttpd closes the connection without a byte of answer,
/// whatever the request has done.
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

    /// The bytes the answer's header fields may take after a request whose
    /// header block is `headerBlock` bytes, with `records` records and
    /// `cookieBytes` of `Cookie` values: the pool but the request, what
    /// libmicrohttpd may have read ahead (its read buffer, half the pool to
    /// begin with, less the header block), and `answerOverheadBytes`.
    func answerRoom(headerBlock: Int, records: Int, cookieBytes: Int) -> Int {
        let readAhead = max(poolBytes / 2 - headerBlock, 0)
        let cookieCopy = cookieBytes > 0 ? cookieBytes + 1 : 0
        // One record more than the values: the `Connection: close` the server may add.
        return poolBytes - headerBlock - readAhead - (records + 1) * Self.recordBytes - cookieCopy - Self.answerOverheadBytes
    }

    /// Whether a request that leaves `answerRoom` is served; one that leaves
    /// less than the reserve is refused before anything is done for it.
    func admits(answerRoom: Int) -> Bool {
        answerRoom + Self.answerOverheadBytes >= answerReserve
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

/// The bytes of a request's header fields as they are collected: the sum of
/// their lines' lengths, which stands in for the header block's size when
/// libmicrohttpd does not say it, and the `Cookie` fields' value bytes.
struct HeaderFieldBytes {
    /// Every field's name and value bytes, with four more a field (`: `, CRLF).
    private(set) var summed = 0
    /// The `Cookie` fields' value bytes.
    private(set) var cookieBytes = 0

    /// Notes one header field.
    mutating func note(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        summed += name.count + value.count + 4  // ": ", CRLF
        if name.count == 6, Self.isCookie(name) { cookieBytes += value.count }
    }

    /// The header block's size: `measured` (libmicrohttpd's count), or the
    /// lines' lengths with a request line of `requestLine` bytes and the empty
    /// line when that is more.
    func headerBlock(measured: Int, requestLine: Int) -> Int {
        max(measured, requestLine + summed + 2)
    }

    private static func isCookie(_ name: UnsafeRawBufferPointer) -> Bool {
        zip(name, "cookie".utf8).allSatisfy { $0 | 0x20 == $1 }
    }
}
