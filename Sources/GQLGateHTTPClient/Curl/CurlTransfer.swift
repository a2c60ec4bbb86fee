import CCurl
import CCurlShims
import GQLGateCore

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

    /// Orders what the loop wrote before the caller's task reads it (for ThreadSanitizer).
    private let handOff: ResponseHandOff

    init(request: HTTPClientRequest, budget: ResponseBytesBudget, handOff: ResponseHandOff) {
        self.request = request
        self.budget = budget
        self.handOff = handOff
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
    }

    deinit {
        budget.giveBack(taken)
        errorBuffer.deallocate()
    }

    /// Resumes the waiting caller once; later calls do nothing. The body's
    /// bytes go back to the budget: they are the caller's now.
    func finish(_ result: Result<HTTPClientResponse, any Error>) {
        budget.giveBack(taken)
        taken = 0
        guard let continuation else { return }
        self.continuation = nil
        handOff.sent()
        continuation.resume(with: result)
    }

    /// Keeps `length` more body bytes (decoded, when libcurl decodes); false,
    /// which ends the transfer, past `request.maxResponseBytes`, past what the
    /// answers in flight may hold together, or out of memory.
    func receiveBody(_ bytes: UnsafeRawPointer, length: Int) -> Bool {
        guard length <= request.maxResponseBytes - body.count else {
            answerTooLarge = true
            return false
        }
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

    /// Handles one header line from libcurl (status lines start a new set);
    /// false, which ends the transfer, for a `101 Switching Protocols`: libcurl
    /// would take what follows as a body read until the upstream closes.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        if line.count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            responseHeaders.removeAll()
            if Self.status(ofStatusLine: line) == 101 {
                switchedProtocols = true
                return false
            }
            return true
        }
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A { end -= 1 }
        guard end > 0 else { return true }  // the blank line that ends the header block
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

/// libcurl write callback: appends answer bytes to the transfer; a short
/// count (past the size limit) makes libcurl end it with `CURLE_WRITE_ERROR`.
let curlWriteCallback: gqlgate_curl_data_cb = { pointer, size, count, userdata in
    guard let pointer, let userdata else { return 0 }
    let length = size * count
    // The transfer is retained by its multi until it completes: a guaranteed reference, no retain per call.
    return Unmanaged<CurlTransfer>.fromOpaque(userdata)._withUnsafeGuaranteedRef { $0.receiveBody(pointer, length: length) } ? length : 0
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
