#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPDShims
import CMicroHTTPD
@_spi(GQLGateInternals) import GQLGateCore

/// libmicrohttpd's access handler: runs on a server thread for every step of
/// a request. First call: create the request; body calls: collect it (413 at
/// once past the limit); last call: answer locally or suspend and dispatch;
/// the call after a resume: queue the prepared answer.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, requestSlot in
    guard let cls, let connection, let uploadDataSize, let requestSlot else { return .NO }
    // Guaranteed references: the server outlives its daemon, and the request
    // is retained by its slot until the completed handler; no retain per call.
    return Unmanaged<HTTPServer>.fromOpaque(cls)._withUnsafeGuaranteedRef { server in
        guard let existing = requestSlot.pointee else {
            return begin(on: connection, method: method, url: url, slot: requestSlot, server: server)
        }
        return Unmanaged<ServerRequest>.fromOpaque(existing)._withUnsafeGuaranteedRef { request in
            step(request, on: connection, uploadData: uploadData, uploadDataSize: uploadDataSize, server: server)
        }
    }
}

/// The first call for a request: creates it, collects its header fields and
/// checks how its body is framed, refusing a bad framing or a declared body
/// over the limit at once (before libmicrohttpd reads the body).
private func begin(on connection: OpaquePointer, method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?,
                   slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>, server: HTTPServer) -> MHD_Result {
    // The header block is in: the body's time starts.
    server.watch.headerArrived(connection, at: GatewayClock.system.monotonicNanoseconds())
    let request = ServerRequest(
        connection: connection,
        method: method.map { String(cString: $0) } ?? "GET",
        path: url.map { String(cString: $0) } ?? "/",
        server: server)
    slot.pointee = Unmanaged.passRetained(request).toOpaque()  // released in completedHandler
    let fields: RequestHeaderFields.Measure
    if server.readsHeadersOnDemand {
        // Read as `HTTPHeaders` only when something asks for them (`ServerRequest.headers`).
        fields = RequestHeaderFields.measure(connection)
    } else {
        (request.storedHeaders, fields) = RequestHeaderFields.collectAndMeasure(connection, cache: server.requestHeaders)
        request.headersCollected = true
    }
    (request.headerLineBytes, request.headerFieldCount) = (fields.bytes.summed, fields.count)
    request.answerRoom = answerRoom(on: connection, fields: fields.count, fieldBytes: fields.bytes, method: method, url: url, memory: server.connectionMemory)
    guard server.connectionMemory.admits(answerRoom: request.answerRoom) else {
        // Refused before anything is done for it: its answer's header block might not fit.
        request.phase = .rejected
        request.closesConnection = true
        return queue(server.delegate.refuseFraming(request, .headerFieldsTooLarge), on: connection, for: request)
    }
    if server.requiresClientCertificates {
        if let subject = verifiedClientSubject(connection) {
            request.storedClientCertificateSubject = subject
        } else if let refusal = server.delegate.refuseClientCertificate(request) {
            request.phase = .rejected
            request.closesConnection = true
            return queue(refusal, on: connection, for: request)
        }
    }
    switch fields.framing.verdict(maxBodyBytes: server.configuration.maxBodyBytes) {
    case .accept(let closeAfterAnswer):
        request.closesConnection = closeAfterAnswer
        return .YES
    case .tooLarge:
        request.phase = .rejected
        request.closesConnection = true
        return queue(server.delegate.payloadTooLarge(request), on: connection, for: request)
    case .refused(let refusal):
        request.phase = .rejected
        request.closesConnection = true
        return queue(server.delegate.refuseFraming(request, refusal), on: connection, for: request)
    }
}

/// The subject of the client certificate the connection presented, when the
/// client CAs signed it (checked once per connection).
private func verifiedClientSubject(_ connection: OpaquePointer) -> String? {
    var subject: UnsafePointer<CChar>?
    var length = 0
    guard gqlgate_tls_client_subject(connection, &subject, &length) == 1, let subject else { return nil }
    return String(decoding: UnsafeRawBufferPointer(start: subject, count: length), as: UTF8.self)
}

/// Sends the delegate's answer at once, or suspends the connection and
/// dispatches the request with what the delegate worked out.
private func answerOrDispatch(_ request: ServerRequest, on connection: OpaquePointer, server: HTTPServer) -> MHD_Result {
    switch server.delegate.answer(request) {
    case .now(let response):
        request.phase = .done
        return queue(response, on: connection, for: request)
    case .later(let dispatch):
        request.collectHeaders()  // read from the connection's memory: here, before the request leaves this thread
        request.phase = .dispatched
        request.wasDispatched = true
        request.willDispatch()
        noteAnswering(request, on: connection, server: server)
        MHD_suspend_connection(connection)
        server.noteSuspended()
        dispatch()
        return .YES
    }
}

/// Every later call: collects the body, then answers or dispatches; after a resume, queues the answer.
private func step(_ request: ServerRequest, on connection: OpaquePointer, uploadData: UnsafePointer<CChar>?,
                  uploadDataSize: UnsafeMutablePointer<Int>, server: HTTPServer) -> MHD_Result {
    switch request.phase {
    case .receiving:
        let size = uploadDataSize.pointee
        if size > 0 {
            uploadDataSize.pointee = 0
            guard request.collected.count + size <= server.configuration.maxBodyBytes else {
                // libmicrohttpd queues answers only before the body or after it:
                // the rest of a chunked body is read and dropped, then answered 413.
                request.phase = .discarding
                _ = request.collected.take()
                return .YES
            }
            guard let uploadData, request.collected.append(uploadData, length: size) else { return .NO }
            return .YES
        }
        request.storedBody = request.collected.take()
        request.storedQueryItems = collectQueryItems(connection)
        return answerOrDispatch(request, on: connection, server: server)
    case .discarding:
        guard uploadDataSize.pointee == 0 else {
            uploadDataSize.pointee = 0
            return .YES
        }
        request.phase = .done
        request.closesConnection = true
        return queue(server.delegate.payloadTooLarge(request), on: connection, for: request)
    case .rejected:
        uploadDataSize.pointee = 0
        return .YES
    case .dispatched:
        // Still counted as suspended until its answer is out (`completedHandler`):
        // stopping the server now would drop the answer unsent.
        request.phase = .done
        guard let response = request.takeResponse() else { return .NO }
        return queue(response, on: connection, for: request)
    case .done:
        uploadDataSize.pointee = 0
        return .YES
    }
}

/// Called once per request when libmicrohttpd is done with it (sent, or the
/// client left): ends a streamed body, drops the server's reference to the request.
let completedHandler: MHD_RequestCompletedCallback = { _, connection, requestSlot, termination in
    guard let requestSlot, let existing = requestSlot.pointee else { return }
    requestSlot.pointee = nil
    let request = Unmanaged<ServerRequest>.fromOpaque(existing)
    let completedNormally = termination == .REQUEST_TERMINATED_COMPLETED_OK
    request._withUnsafeGuaranteedRef { request in
        if request.wasDispatched { request.server.noteResumed() }
        request.streamingBody?.connectionEnded(completedNormally: completedNormally)
        guard completedNormally, !request.upgrades, let connection else { return }
        // The answer is out: the connection waits for its next request.
        request.server.watch.answered(connection, at: GatewayClock.system.monotonicNanoseconds())
        if request.hasWriteTimeout {
            _ = gqlgate_mhd_set_connection_timeout(connection, request.server.idleTimeout)
        }
    }
    request.release()
}

/// The request no longer owes anything (its body is in, or it is answered
/// before it): its connection leaves the header and body deadlines.
private func noteAnswering(_ request: ServerRequest, on connection: OpaquePointer, server: HTTPServer) {
    guard !request.isAnswering else { return }
    request.isAnswering = true
    server.watch.answering(connection)
}

private func queue(_ response: ServerResponse, on connection: OpaquePointer, for request: ServerRequest) -> MHD_Result {
    let server = request.server
    noteAnswering(request, on: connection, server: server)
    var response = response
    if let fields = request.everyAnswerFields, response.prebuilt == nil, response.upgradeHandler == nil {
        for field in fields {
            if !field.name.equalsIgnoringASCIICase("vary") { response.headers.remove(name: field.name) }
            response.headers.add(name: field.name, value: field.value)
        }
    }
    if response.prebuilt == nil {
        let (headers, dropped) = ConnectionMemory.fitting(response.headers, into: request.answerRoom)
        if !dropped.isEmpty {
            response.headers = headers
            // A refusal for want of room says so itself.
            if request.phase != .rejected { server.delegate.droppedAnswerFields(request, names: dropped) }
        }
    }
    if response.upgradeHandler == nil {
        if request.closesConnection || server.isDraining {
            guard ConnectionClose.mark(connection) || !request.closesConnection else { return .NO }
        }
        if server.writeTimeout != server.idleTimeout {
            // Until the answer is out, a client that reads nothing for this long is dropped.
            _ = gqlgate_mhd_set_connection_timeout(connection, server.writeTimeout)
            request.hasWriteTimeout = true
        }
    }
    if let prebuilt = response.prebuilt {
        guard let handle = prebuilt.handle else { return .NO }
        return MHD_queue_response(connection, UInt32(prebuilt.status), handle)
    }
    if let body = response.streamingBody {
        request.collectHeaders()
        request.streamingBody = body
        body.attach(to: connection, server: request.server)
        guard let handle = ResponseBuilder.makeStreaming(response, body: body) else { return .NO }
        let result = MHD_queue_response(connection, UInt32(response.status), handle)
        MHD_destroy_response(handle)
        return result
    }
    if let upgradeHandler = response.upgradeHandler {
        request.collectHeaders()
        request.upgradeHandler = upgradeHandler
        request.upgrades = true
    }
    guard let handle = response.upgradeHandler == nil ? ResponseBuilder.make(response) : ResponseBuilder.makeUpgrade(response) else { return .NO }
    let result = MHD_queue_response(connection, UInt32(response.status), handle)
    MHD_destroy_response(handle)
    return result
}

/// The room the request leaves its answer's header fields in the connection's memory.
private func answerRoom(on connection: OpaquePointer, fields: Int, fieldBytes: HeaderFieldBytes,
                        method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?, memory: ConnectionMemory) -> Int {
    let requestLine = (method.map { strlen($0) } ?? 0) + (url.map { strlen($0) } ?? 0) + 12  // " ", " HTTP/1.1", CRLF
    let headerBlock = fieldBytes.headerBlock(measured: gqlgate_mhd_request_header_size(connection), requestLine: requestLine)
    let cookies = fieldBytes.cookieBytes > 0 ? valueCount(connection, .COOKIE_KIND) : 0
    return memory.answerRoom(
        headerBlock: headerBlock, records: fields + cookies + valueCount(connection, .GET_ARGUMENT_KIND), cookieBytes: fieldBytes.cookieBytes)
}

/// How many values of `kind` libmicrohttpd holds for the request.
private func valueCount(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> Int {
    Int(MHD_get_connection_values(connection, kind, nil, nil))
}

private func collectQueryItems(_ connection: OpaquePointer) -> [(name: String, value: String?)] {
    var items: [(name: String, value: String?)] = []
    withUnsafeMutablePointer(to: &items) { pointer in
        _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let items = cls.assumingMemoryBound(to: [(name: String, value: String?)].self)
            items.pointee.append((String(cString: key), value.map { String(cString: $0) }))
            return .YES
        }, pointer)
    }
    return items
}

/// Makes libmicrohttpd close a connection once the current answer is out: a
/// request field `Connection: close` added on the server side, which
/// libmicrohttpd honours like the client's own (and says so in the answer).
private enum ConnectionClose {
    private static let name: StaticString = "Connection"
    private static let value: StaticString = "close"

    /// Returns false when the connection's memory pool has no room left for the field.
    static func mark(_ connection: OpaquePointer) -> Bool {
        // Static strings: libmicrohttpd keeps the pointers for the rest of the request.
        let name = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        let value = UnsafeRawPointer(value.utf8Start).assumingMemoryBound(to: CChar.self)
        return MHD_set_connection_value(connection, .HEADER_KIND, name, value) == .YES
    }
}
