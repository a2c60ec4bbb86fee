import CMicroHTTPDShims
import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A connection libmicrohttpd handed over after a `101 Switching Protocols`
/// answer: the socket, the bytes it had already read past the request, and
/// the only correct way to close it.
///
/// Over plain TCP the socket is taken over at once: a duplicate of it is
/// kept, and libmicrohttpd is told the connection is done, which frees its
/// memory pool (`server.max_header_bytes`) and its connection record while
/// the socket stays open through the duplicate (libmicrohttpd 0.9.75 closes
/// an upgraded plain connection without `shutdown`). The server's
/// `ConnectionWatch` counts it as open until `close()`. Under TLS the socket
/// is libmicrohttpd's end of the pair it forwards through the TLS session:
/// libmicrohttpd keeps the connection and closes it.
///
/// `@unchecked Sendable`: the fields are immutable; the socket is closed
/// once, by `close()`, behind an atomic flag (libmicrohttpd's upgrade action
/// may be called from any thread).
package final class UpgradedSocket: @unchecked Sendable {
    private enum Owner {
        /// libmicrohttpd's: closed with its upgrade action.
        case library(OpaquePointer)
        /// The gateway's duplicate: closed with `close(2)`, and the watch told.
        case gateway(ConnectionWatch)
    }

    /// The socket; never `close(2)` it: call `close()`.
    package let fileDescriptor: Int32
    /// Bytes the client sent after its request header, read by libmicrohttpd;
    /// they come before anything read from the socket.
    package let initialBytes: [UInt8]
    private let owner: Owner
    private let closed = Atomic<Bool>(false)

    /// Takes `socket` over from libmicrohttpd when `server` speaks plain
    /// HTTP and it can be duplicated, else leaves it with `handle`. Server thread.
    init(socket: Int32, initialBytes: [UInt8], handle: OpaquePointer, server: HTTPServer) {
        self.initialBytes = initialBytes
        let duplicate = server.configuration.tls == nil ? fcntl(socket, F_DUPFD_CLOEXEC, 0) : -1
        guard duplicate >= 0 else {
            fileDescriptor = socket
            owner = .library(handle)
            return
        }
        fileDescriptor = duplicate
        owner = .gateway(server.watch)
        server.watch.tookOver()  // before libmicrohttpd reports the connection closed
        _ = gqlgate_mhd_upgrade_close(handle)
    }

    deinit {
        close()
    }

    /// Closes the socket: gives it back to libmicrohttpd, which closes it
    /// (`MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE)`), or closes the
    /// duplicate. Stop watching the descriptor first. Later calls do nothing.
    package func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        switch owner {
        case .library(let handle):
            _ = gqlgate_mhd_upgrade_close(handle)
        case .gateway(let watch):
            _ = Glibc.close(fileDescriptor)
            watch.releasedTakenOver()
        }
    }
}

/// libmicrohttpd's upgrade handler: runs on the server thread once the `101`
/// header is out; hands the socket to the delegate's handler, which must not block.
let mhdUpgradeHandler: MHD_UpgradeHandler = { _, _, requestContext, extraIn, extraInSize, socket, handle in
    guard let requestContext, let handle else { return }
    let request = Unmanaged<ServerRequest>.fromOpaque(requestContext).takeUnretainedValue()
    let initial = extraIn.map { Array(UnsafeRawBufferPointer(start: $0, count: extraInSize)) } ?? []
    let upgraded = UpgradedSocket(socket: socket, initialBytes: initial, handle: handle, server: request.server)
    guard let handler = request.upgradeHandler else {
        upgraded.close()
        return
    }
    request.upgradeHandler = nil
    handler(upgraded)
}
