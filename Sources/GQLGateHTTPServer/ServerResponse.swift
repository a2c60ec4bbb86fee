import CMicroHTTPD
package import GQLGateCore

/// An answer for libmicrohttpd to send: status, headers and a body handed over
/// without a copy, a `StaticResponse` built once and sent many times, or a
/// body written over time (`streaming`).
package struct ServerResponse: Sendable {
    /// HTTP status code.
    package var status: Int
    /// Header fields; `Content-Length`, `Transfer-Encoding` and `Connection`
    /// are the server's and are skipped.
    package var headers: HTTPHeaders
    /// The body.
    package var body: Bytes
    let prebuilt: StaticResponse?
    let upgradeHandler: (@Sendable (UpgradedSocket) -> Void)?
    /// The body written over time, for a streamed answer.
    let streamingBody: StreamingBody?

    package init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Bytes = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
        prebuilt = nil
        upgradeHandler = nil
        streamingBody = nil
    }

    /// Answers with `status` and `headers` at once and a body written over
    /// time: chunked (HTTP/1.1), each write sent as soon as the client takes it.
    package static func streaming(status: Int = 200, headers: HTTPHeaders, body: StreamingBody) -> ServerResponse {
        ServerResponse(status: status, headers: headers, streamingBody: body)
    }

    private init(status: Int, headers: HTTPHeaders, streamingBody: StreamingBody) {
        self.status = status
        self.headers = headers
        body = .empty
        prebuilt = nil
        upgradeHandler = nil
        self.streamingBody = streamingBody
    }

    /// Switches the connection to another protocol (a WebSocket): answers
    /// `101 Switching Protocols` with `headers` (`Upgrade`,
    /// `Sec-WebSocket-Accept`, ...; libmicrohttpd adds `Connection: Upgrade`),
    /// then calls `handler` on the server thread with the socket. `handler`
    /// must not block: post the socket to a loop and return.
    package static func upgrade(headers: HTTPHeaders, handler: @escaping @Sendable (UpgradedSocket) -> Void) -> ServerResponse {
        ServerResponse(status: 101, headers: headers, upgradeHandler: handler)
    }

    private init(status: Int, headers: HTTPHeaders, upgradeHandler: @escaping @Sendable (UpgradedSocket) -> Void) {
        self.status = status
        self.headers = headers
        body = .empty
        prebuilt = nil
        self.upgradeHandler = upgradeHandler
        streamingBody = nil
    }

    /// Sends a prebuilt answer.
    package init(_ prebuilt: StaticResponse) {
        status = prebuilt.status
        headers = HTTPHeaders()
        body = .empty
        self.prebuilt = prebuilt
        upgradeHandler = nil
        streamingBody = nil
    }
}

/// A fixed answer (health checks, canned errors) turned into a libmicrohttpd
/// response once and queued again for every request, without allocation.
///
/// `@unchecked Sendable`: the MHD response is immutable after `init` and
/// libmicrohttpd reference-counts it under its own mutex, so any server
/// thread may queue it.
package final class StaticResponse: @unchecked Sendable {
    /// HTTP status code.
    package let status: Int
    private let body: Bytes
    /// Nil when libmicrohttpd could not allocate the response: queueing it
    /// then fails, and the server closes the connection, as for any answer
    /// it cannot make.
    let handle: OpaquePointer?

    package init(status: Int, headers: HTTPHeaders, body: Bytes) {
        self.status = status
        self.body = body
        handle = MHD_create_response_from_buffer(body.count, body.baseAddress, .RESPMEM_PERSISTENT)
        if let handle { ResponseBuilder.addHeaders(headers, to: handle) }
    }

    deinit {
        if let handle { MHD_destroy_response(handle) }
    }
}

/// Turns `ServerResponse`s into libmicrohttpd responses.
enum ResponseBuilder {
    /// Creates an MHD response that hands the connection to `mhdUpgradeHandler` once the 101 header is out.
    static func makeUpgrade(_ response: ServerResponse) -> OpaquePointer? {
        let handle = MHD_create_response_for_upgrade(mhdUpgradeHandler, nil)
        if let handle { addHeaders(response.headers, to: handle) }
        return handle
    }

    /// Creates an MHD response of unknown length (sent chunked) that reads `body` as it is written.
    static func makeStreaming(_ response: ServerResponse, body: StreamingBody) -> OpaquePointer? {
        let retained = Unmanaged.passRetained(body).toOpaque()  // released by releaseStreamingBody with the response
        let handle = MHD_create_response_from_callback(UInt64.max, streamBlockSize, readStreamingBody, retained, releaseStreamingBody)
        guard let handle else {
            Unmanaged<StreamingBody>.fromOpaque(retained).release()
            return nil
        }
        addHeaders(response.headers, to: handle)
        return handle
    }

    /// The response's own buffer, used only when the body cannot be chunked (HTTP/1.0).
    private static let streamBlockSize = 16 * 1024

    /// Creates an MHD response that borrows `response.body` until MHD is done with it.
    static func make(_ response: ServerResponse) -> OpaquePointer? {
        let body = response.body
        let handle: OpaquePointer?
        if body.count == 0 {
            handle = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        } else {
            let retained = Unmanaged.passRetained(body).toOpaque()  // released by releaseBody once MHD has sent it
            handle = MHD_create_response_from_buffer_with_free_callback_cls(body.count, body.baseAddress, releaseBody, retained)
            if handle == nil { Unmanaged<Bytes>.fromOpaque(retained).release() }
        }
        if let handle { addHeaders(response.headers, to: handle) }
        return handle
    }

    static func addHeaders(_ headers: HTTPHeaders, to handle: OpaquePointer) {
        headers.withFields { fields in
            for index in fields.indices where !isServerOwned(fields[index].name) {
                // withCString hands over a native string's own bytes; passing the
                // String itself would copy both into a new array per field.
                _ = fields[index].name.withCString { name in
                    fields[index].value.withCString { value in MHD_add_response_header(handle, name, value) }
                }
            }
        }
    }

    /// Fields libmicrohttpd writes itself; told apart by length first.
    private static func isServerOwned(_ name: String) -> Bool {
        switch name.utf8.count {
        case 10: return name.equalsIgnoringASCIICase("connection")
        case 14: return name.equalsIgnoringASCIICase("content-length")
        case 17: return name.equalsIgnoringASCIICase("transfer-encoding")
        default: return false
        }
    }
}

private let releaseBody: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<Bytes>.fromOpaque(cls).release()
}
