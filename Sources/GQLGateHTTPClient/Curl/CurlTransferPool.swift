import CCurl
import CCurlShims
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop

/// The requests one loop sends: starts each `CurlTransfer` on a pooled easy
/// handle of the loop's `CurlMulti`, tracks those running, and resumes each
/// caller with its answer once the multi reports the transfer done.
///
/// Its variables are `@exclusivity(unchecked)` for the same reason as
/// `CurlTransfer`'s: one thread, and no access overlaps another.
final class CurlTransferPool: CurlMultiDelegate {
    let loop: EventLoop
    /// Nil when libcurl could not make the multi handle: every transfer then fails with `multiFailure`.
    private let multi: CurlMulti?
    private let multiFailure: HTTPClientError?
    private let proxies: ProxyEnvironment
    @exclusivity(unchecked) private var idleHandles: [IdleHandle] = []
    /// Easy handles of the transfers running, for `shutDown`.
    @exclusivity(unchecked) private var active = SlotTable<UnsafeMutableRawPointer>()
    /// The URL most recently requested, parsed (nearly every request goes to the one upstream URL).
    @exclusivity(unchecked) private var lastURL: CurlParsedURL?
    /// Header lines of recent answers (by the line's bytes), shared by this pool's transfers.
    private let headerLines = RecentHeaderFields(capacity: 16, longestKey: 256)

    init(loop: EventLoop, maxConnections: Int, proxies: ProxyEnvironment = .process) {
        self.loop = loop
        self.proxies = proxies
        do {
            multi = try CurlMulti(loop: loop, maxConnections: maxConnections)
            multiFailure = nil
        } catch {
            multi = nil
            multiFailure = error
        }
        multi?.delegate = self
    }

    /// Starts `transfer`; its caller waits on `continuation`, which is set here,
    /// on the loop, so a cancellation that arrived first resumes it at once.
    func start(_ transfer: CurlTransfer, resuming continuation: UnsafeContinuation<HTTPClientResponse, any Error>) {
        transfer.continuation = continuation
        guard !transfer.cancelled else {
            transfer.finish(.failure(HTTPClientError.cancelled))
            return
        }
        guard let multi, let idle = idleHandles.popLast() ?? makeHandle(on: multi) else {
            transfer.finish(.failure(multiFailure ?? Self.noEasyHandle))
            return
        }
        let easy = idle.easy
        transfer.easy = easy
        transfer.headerLines = headerLines
        if idle.decodes != transfer.request.acceptsCompression {
            // Set: libcurl decodes answers (the request's header list carries the Accept-Encoding line); nil: bodies as sent.
            if transfer.request.acceptsCompression {
                gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_ACCEPT_ENCODING, "")
            } else {
                gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_ACCEPT_ENCODING, nil)
            }
        }
        configure(easy, for: transfer)
        let retained = Unmanaged.passRetained(transfer).toOpaque()  // released in complete(_:code:)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, retained)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, retained)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, retained)
        transfer.activeKey = active.insert { _ in easy }
        if !multi.add(easy) {
            complete(easy, code: CURLE_FAILED_INIT)
        }
    }

    /// Cancels `transfer`: in flight, it ends now; not started yet, `start` ends it.
    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelled = true
        guard let easy = transfer.easy else {  // not started, or over
            transfer.finish(.failure(HTTPClientError.cancelled))
            return
        }
        complete(easy, code: nil)
    }

    /// Resumes `transfer` where its write callback paused it (its parts' reader took some); nothing once it is over.
    func resumeReceiving(_ transfer: CurlTransfer) {
        guard let easy = transfer.easy else { return }
        curl_easy_pause(easy, gqlgate_curl_pause_cont)
    }

    /// Ends every transfer (as cancelled), closes every connection and frees
    /// libcurl's handles; after it, nothing on the loop refers to this pool.
    /// Loop only; for a client that is going away.
    func shutDown() {
        for easy in active.removeAll() { complete(easy, code: nil) }
        for idle in idleHandles { curl_easy_cleanup(idle.easy) }
        idleHandles.removeAll()
        multi?.close()
    }

    func curlMulti(_ multi: CurlMulti, finished easy: UnsafeMutableRawPointer, code: CURLcode) {
        complete(easy, code: code)
    }

    /// What a transfer gets when libcurl cannot allocate an easy handle.
    static let noEasyHandle = HTTPClientError(kind: .notReached, code: Int32(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_easy_init failed")

    private func makeHandle(on multi: CurlMulti) -> IdleHandle? {
        guard let easy = multi.makeEasyHandle() else { return nil }
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, gqlgate_curl_http_version_2tls)
        gqlgate_curl_easy_setopt_write_function(easy, curlWriteCallback)
        gqlgate_curl_easy_setopt_header_function(easy, curlHeaderCallback)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_NOPROXY, proxies.noProxy)
        if proxies.isSameForEveryURL { gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PROXY, proxies.http) }
        return IdleHandle(easy: easy, decodes: false)
    }

    private func configure(_ easy: UnsafeMutableRawPointer, for transfer: CurlTransfer) {
        let request = transfer.request
        // curl copies the URL; withCString lends a native string's own bytes instead of a new array.
        _ = request.url.withCString { gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_URL, $0) }
        // With the parsed form beside the text, curl copies its parts instead of parsing again.
        let parsed = parsedURL(request.url)
        transfer.parsedURL = parsed
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_CURLU, parsed.map { UnsafeRawPointer($0.handle) })
        if !proxies.isSameForEveryURL { gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PROXY, proxies.proxy(for: request.url)) }
        switch request.method {
        case .get:
            gqlgate_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case .post:
            gqlgate_curl_easy_setopt_long(easy, CURLOPT_POST, 1)
            gqlgate_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_POSTFIELDS, UnsafeRawPointer(request.body.baseAddress ?? emptyBody))
        }
        let list = CurlHeaderList(first: "Expect:", second: request.acceptsCompression ? CurlContentCodings.acceptEncodingLine : nil,
                                  headers: request.headers)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, list.head)
        transfer.headerList = consume list
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(1, request.timeout.milliseconds))
        gqlgate_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, request.connectTimeout.milliseconds))
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
    }

    /// `url` parsed, from the last request's when it is the same text.
    private func parsedURL(_ url: String) -> CurlParsedURL? {
        if let lastURL, lastURL.text == url { return lastURL }
        guard let parsed = CurlParsedURL(url) else { return nil }
        lastURL = parsed
        return parsed
    }

    /// Ends a transfer: `code` nil means cancelled by the caller.
    private func complete(_ easy: UnsafeMutableRawPointer, code: CURLcode?) {
        var pointer: UnsafeMutableRawPointer?
        gqlgate_curl_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &pointer)
        multi?.remove(easy)
        guard let pointer else { return }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(pointer).takeRetainedValue()  // balances start(_:)
        if let key = transfer.activeKey { _ = active.remove(key) }
        let result = outcome(of: transfer, easy: easy, code: code)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, nil)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_CURLU, nil)
        gqlgate_curl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, nil)
        transfer.easy = nil
        transfer.activeKey = nil
        transfer.parsedURL = nil
        transfer.headerLines = nil
        idleHandles.append(IdleHandle(easy: easy, decodes: transfer.request.acceptsCompression))
        transfer.finish(result)
    }

    private func outcome(of transfer: CurlTransfer, easy: UnsafeMutableRawPointer, code: CURLcode?) -> Result<HTTPClientResponse, any Error> {
        guard let code else {
            return .failure(HTTPClientError.cancelled)
        }
        guard code == CURLE_OK else {
            if code == CURLE_WRITE_ERROR, transfer.answerTooLarge {
                return .failure(HTTPClientError(kind: .answerTooLarge, code: Int32(code.rawValue),
                                                message: "the answer is larger than \(transfer.request.maxResponseBytes) bytes (upstream.max_response_bytes, counted decoded)"))
            }
            if code == CURLE_WRITE_ERROR, transfer.budgetSpent {
                return .failure(HTTPClientError(kind: .answerTooLarge, code: Int32(code.rawValue),
                                                message: "the answers being received would hold more than \(transfer.budget.limit) bytes together (upstream.max_response_bytes_in_flight)"))
            }
            if code == CURLE_WRITE_ERROR, let reason = transfer.malformedParts {
                return .failure(HTTPClientError(kind: .failedAfterSend, code: Int32(code.rawValue), message: "the multipart answer is malformed: \(reason)"))
            }
            if code == CURLE_WRITE_ERROR, transfer.switchedProtocols {
                return .failure(HTTPClientError.unusableStatus(101))
            }
            var sent = 0
            gqlgate_curl_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &sent)
            return .failure(HTTPClientError(curlCode: code, errorBuffer: transfer.errorBuffer, requestBytesSent: sent))
        }
        var status = 0
        gqlgate_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        guard HTTPClientError.isFinalStatus(status) else { return .failure(HTTPClientError.unusableStatus(status)) }
        return .success(HTTPClientResponse(status: status, headers: transfer.responseHeaders.headers(), body: transfer.body.take()))
    }
}

/// An easy handle waiting for its next transfer, and whether it asks for
/// compressed answers (`CURLOPT_ACCEPT_ENCODING`, set only when that changes).
private struct IdleHandle {
    let easy: UnsafeMutableRawPointer
    let decodes: Bool
}

/// Loop-bound: made by `HTTPClient` on any thread, then used only on `loop`'s thread.
@available(*, unavailable)
extension CurlTransferPool: Sendable {}

/// What `CURLOPT_POSTFIELDS` points at for an empty body (NULL would make curl
/// read the body from a callback). Never written.
nonisolated(unsafe) private let emptyBody = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
