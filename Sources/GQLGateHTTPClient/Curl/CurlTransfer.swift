import CCurl
import CCurlShims
@_spi(GQLGateInternals) import GQLGateCore

/// One upstream request in flight: what libcurl's callbacks write into and
/// the continuation its completion resumes. Loop-bound: created by the
/// caller, then touched only on the loop thread whose `CurlTransferPool` runs
/// it (the continuation too is stored there, by `CurlTransferPool.start`).
///
/// The variables are `@exclusivity(unchecked)`: one thread, and no access
/// overlaps another, so the run-time check (about 80 instructions an access,
/// several a request) only costs.
final class CurlTransfer {
    let request: HTTPClientRequest
    @exclusivity(unchecked) var continuation: UnsafeContinuation<HTTPClientResponse, any Error>?
    @exclusivity(unchecked) var easy: UnsafeMutableRawPointer?
    /// Where the multi keeps `easy` while the transfer runs.
    @exclusivity(unchecked) var activeKey: SlotTable<UnsafeMutableRawPointer>.Key?
    /// The header lines lent to curl while the transfer runs.
    @exclusivity(unchecked) var headerList: CurlHeaderList?
    /// The parsed URL lent to curl while the transfer runs.
    @exclusivity(unchecked) var parsedURL: CurlParsedURL?
    /// The multi's recent header lines, while the transfer runs.
    @exclusivity(unchecked) var headerLines: RecentHeaderFields?
    @exclusivity(unchecked) var body = ByteAccumulator()
    @exclusivity(unchecked) var responseHeaders = EndToEndFields(capacity: 12)
    let errorBuffer: UnsafeMutablePointer<CChar>
    @exclusivity(unchecked) var cancelled = false
    /// Set when the body ran past `request.maxResponseBytes` and the write callback ended the transfer.
    @exclusivity(unchecked) var answerTooLarge = false
    /// Set when the body would have taken the answers in flight past their budget.
    @exclusivity(unchecked) var budgetSpent = false
    /// What the answers in flight may hold together; the body's bytes are taken from it.
    let budget: ResponseBytesBudget
    @exclusivity(unchecked) private var taken = 0
    /// Set when the upstream answered `101 Switching Protocols` (nothing here asks
    /// for a switch) and the header callback ended the transfer.
    @exclusivity(unchecked) var switchedProtocols = false

    /// The status of the header block being received (`HTTP/1.1 200 OK` → 200).
    @exclusivity(unchecked) private var headStatus: Int?
    /// Where a multipart answer's parts go, when the request `readsParts`.
    let partQueue: PartQueue?
    /// Reads the body into parts once the answer turned out to be `multipart/mixed`
    /// (its head then went to the caller); nil while the body is gathered whole.
    @exclusivity(unchecked) private var partReader: MultipartReader?
    /// Body bytes received, decoded (a multipart answer's, against `request.maxResponseBytes`).
    @exclusivity(unchecked) private var received = 0
    /// Budget taken for what `partReader` holds.
    @exclusivity(unchecked) private var readerTaken = 0
    /// Set when a multipart answer turned out to be no multipart body, which ended the transfer.
    @exclusivity(unchecked) var malformedParts: String?

    /// Orders what the loop wrote before the caller's task reads it (for ThreadSanitizer).
    private let handOff: ResponseHandOff

    init(request: HTTPClientRequest, budget: ResponseBytesBudget, handOff: ResponseHandOff, partQueue: PartQueue? = nil) {
        self.request = request
        self.budget = budget
        self.handOff = handOff
        self.partQueue = partQueue
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
    }

    deinit {
        budget.giveBack(taken + readerTaken)
        errorBuffer.deallocate()
    }

    /// Resumes the waiting caller once; later calls do nothing. The body's
    /// bytes go back to the budget: they are the caller's now. When the head
    /// already went to the caller (a multipart answer), the result ends its parts instead.
    func finish(_ result: Result<HTTPClientResponse, any Error>) {
        budget.giveBack(taken + readerTaken)
        taken = 0
        readerTaken = 0
        guard let continuation else {
            if let partQueue, partReader != nil { partQueue.finish(partsEnd(result)) }
            return
        }
        self.continuation = nil
        handOff.sent()
        continuation.resume(with: result)
        partQueue?.finish(.cancelled)  // no parts were handed on: nothing reads them
    }

    /// How a multipart answer whose transfer ended with `result` ends for its reader:
    /// nil after its close delimiter, else the error (the transfer's, or the body cut short).
    private func partsEnd(_ result: Result<HTTPClientResponse, any Error>) -> HTTPClientError? {
        switch result {
        case .failure(let error):
            return error as? HTTPClientError ?? HTTPClientError(kind: .failedAfterSend, code: 0, message: "\(error)")
        case .success:
            guard partReader?.isFinished != true else { return nil }
            return HTTPClientError(kind: .failedAfterSend, code: 0, message: "the multipart answer ended before its close delimiter")
        }
    }

    /// Keeps `length` more body bytes (decoded, when libcurl decodes); false,
    /// which ends the transfer, past `request.maxResponseBytes`, past what the
    /// answers in flight may hold together, or out of memory.
    func receiveBody(_ bytes: UnsafeRawPointer, length: Int) -> Bool {
        if partReader != nil { return receiveParts(bytes, length: length) }
        guard length <= request.maxResponseBytes - body.count else {
            answerTooLarge = true
            return false
        }
        if body.capacity == 0 { reserveDeclaredLength(beyond: length) }
        // The budget counts what the body allocates (it grows by doubling), not what it holds.
        let growth = body.capacity(toAppend: length) - body.capacity
        if growth > 0 {
            guard budget.take(growth) else {
                budgetSpent = true
                return false
            }
            taken += growth
        }
        return body.append(bytes, length: length)
    }

    /// Sizes the body for the answer's `Content-Length` before its first bytes,
    /// when that is more than they are and within the limit and the budget: a
    /// large answer then lands in one allocation instead of being copied at
    /// each doubling. (A body libcurl decodes may still grow past it.)
    private func reserveDeclaredLength(beyond length: Int) {
        guard let easy else { return }
        var declared: curl_off_t = -1
        guard gqlgate_curl_easy_getinfo_off(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared) == CURLE_OK,
              declared > length, declared <= request.maxResponseBytes, budget.take(Int(declared))
        else { return }
        guard body.reserve(Int(declared)) else {
            budget.giveBack(Int(declared))
            return
        }
        taken += Int(declared)
    }

    /// Whether the transfer should pause before taking more body bytes: the
    /// parts of a multipart answer wait unread (`PartQueue.shouldPause`).
    func shouldPause() -> Bool {
        partReader != nil && partQueue?.shouldPause() == true
    }

    /// Reads `length` more bytes of a multipart answer, handing on each part
    /// it completes; false, which ends the transfer, past
    /// `request.maxResponseBytes` (all parts together), past what the answers
    /// in flight may hold together, or when the body is no multipart body.
    private func receiveParts(_ bytes: UnsafeRawPointer, length: Int) -> Bool {
        guard var reader = partReader, let partQueue else { return false }
        guard length <= request.maxResponseBytes - received else {
            answerTooLarge = true
            return false
        }
        received += length
        guard budget.take(length) else {
            budgetSpent = true
            return false
        }
        readerTaken += length
        partReader = nil  // taken out while it reads: one copy, no copy-on-write
        defer { partReader = reader }
        reader.append(UnsafeRawBufferPointer(start: bytes, count: length))
        do {
            while let part = try reader.nextPart() {
                readerTaken -= part.count  // the queue holds them now
                partQueue.push(part.withUnsafeBytes { Bytes($0) })
            }
        } catch {
            malformedParts = error.reason
            return false
        }
        budget.giveBack(readerTaken - reader.bufferedCount)  // delimiters and part headers dropped
        readerTaken = reader.bufferedCount
        if reader.isFinished { partQueue.finish(nil) }
        return true
    }

    /// At the end of a header block: when the request reads parts and this is
    /// a final `multipart/mixed` answer, its body is read into parts and the
    /// head goes to the caller now, with the parts to come.
    private func headerBlockEnded() {
        guard let partQueue, partReader == nil, let status = headStatus, HTTPClientError.isFinalStatus(status), let continuation else { return }
        let headers = responseHeaders.headers()
        guard let contentType = headers["content-type"], let reader = MultipartReader(contentType: contentType) else { return }
        partReader = reader
        self.continuation = nil
        handOff.sent()
        continuation.resume(returning: HTTPClientResponse(status: status, headers: headers, body: .empty, parts: MultipartParts(queue: partQueue)))
    }

    /// Handles one header line from libcurl (status lines start a new set);
    /// false, which ends the transfer, for a `101 Switching Protocols`: libcurl
    /// would take what follows as a body read until the upstream closes.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        if line.count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            responseHeaders.removeAll()
            headStatus = Self.status(ofStatusLine: line)
            if headStatus == 101 {
                switchedProtocols = true
                return false
            }
            return true
        }
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A { end -= 1 }
        guard end > 0 else {  // the blank line that ends the header block
            if request.readsParts { headerBlockEnded() }
            return true
        }
        let content = UnsafeRawBufferPointer(rebasing: line[..<end])
        let field = headerLines.map { $0.field(for: content, make: Self.field) } ?? Self.field(content)
        guard let field else { return true }
        // libcurl decoded the body: its Content-Encoding describes bytes nobody gets.
        if request.acceptsCompression, field.name.utf8.count == 16, field.name.equalsIgnoringASCIICase("content-encoding") { return true }
        responseHeaders.add(field)
        return true
    }

    /// The status code of a status line (`HTTP/1.1 200 OK`): the three digits after the first space; nil without them.
    static func status(ofStatusLine line: UnsafeRawBufferPointer) -> Int? {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")), line.count >= space + 4 else { return nil }
        var status = 0
        for digit in line[(space + 1)...(space + 3)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            status = status * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return status
    }

    /// The field a header line (without its CRLF) holds; nil without a colon.
    static func field(_ line: UnsafeRawBufferPointer) -> HTTPHeaders.Field? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        var start = colon + 1, end = line.count
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] == 0x20 { end -= 1 }
        return HTTPHeaders.Field(name: UnsafeRawBufferPointer(rebasing: line[..<colon]),
                                 value: UnsafeRawBufferPointer(rebasing: line[start..<end]))
    }
}

@available(*, unavailable)
extension CurlTransfer: Sendable {}

/// libcurl write callback: appends answer bytes to the transfer (or reads
/// them into parts); a short count (past the size limit) makes libcurl end it
/// with `CURLE_WRITE_ERROR`; a multipart answer whose parts wait unread pauses it.
let curlWriteCallback: gqlgate_curl_data_cb = { pointer, size, count, userdata in
    guard let pointer, let userdata else { return 0 }
    let length = size * count
    // The transfer is retained by its multi until it completes: a guaranteed reference, no retain per call.
    return Unmanaged<CurlTransfer>.fromOpaque(userdata)._withUnsafeGuaranteedRef { transfer in
        if transfer.shouldPause() { return gqlgate_curl_writefunc_pause }  // the same bytes come again once resumed
        return transfer.receiveBody(pointer, length: length) ? length : 0
    }
}

/// libcurl header callback: collects the final response's header fields; a
/// short count (a protocol switch) makes libcurl end it with `CURLE_WRITE_ERROR`.
let curlHeaderCallback: gqlgate_curl_data_cb = { pointer, size, count, userdata in
    guard let pointer, let userdata else { return 0 }
    let length = size * count
    let kept = Unmanaged<CurlTransfer>.fromOpaque(userdata)._withUnsafeGuaranteedRef {
        $0.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: length))
    }
    return kept ? length : 0
}
