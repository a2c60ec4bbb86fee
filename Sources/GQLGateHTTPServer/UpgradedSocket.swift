import CMicroHTTPDShims
import CMicroHTTPD
import Synchronization

/// A connection libmicrohttpd handed over after a `101 Switching Protocols`
/// answer: the socket, the bytes it had already read past the request, and
/// the only correct way to close it.
///
/// `@unchecked Sendable`: the fields are immutable; the upgrade handle is used
/// once, by `close()`, behind an atomic flag (libmicrohttpd's upgrade action
/// may be called from any thread).
package final class UpgradedSocket: @unchecked Sendable {
    /// The socket; never `close(2)` it: call `close()`.
    package let fileDescriptor: Int32
    /// Bytes the client sent after its request header, read by libmicrohttpd;
    /// they come before anything read from the socket.
    package let initialBytes: [UInt8]
    private let handle: OpaquePointer
    private let closed = Atomic<Bool>(false)

    init(fileDescriptor: Int32, initialBytes: [UInt8], handle: OpaquePointer) {
        self.fileDescriptor = fileDescriptor
        self.initialBytes = initialBytes
        self.handle = handle
    }

    deinit {
        close()
    }

    /// Gives the socket back to libmicrohttpd, which closes it
    /// (`MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE)`). Stop watching
    /// the descriptor first. Later calls do nothing.
    package func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = gqlgate_mhd_upgrade_close(handle)
    }
}

/// libmicrohttpd's upgrade handler: runs on the server thread once the `101`
/// header is out; hands the socket to the delegate's handler, which must not block.
let mhdUpgradeHandler: MHD_UpgradeHandler = { _, _, requestContext, extraIn, extraInSize, socket, handle in
    guard let requestContext, let handle else { return }
    let request = Unmanaged<ServerRequest>.fromOpaque(requestContext).takeUnretainedValue()
    let initial = extraIn.map { Array(UnsafeRawBufferPointer(start: $0, count: extraInSize)) } ?? []
    let upgraded = UpgradedSocket(fileDescriptor: socket, initialBytes: initial, handle: handle)
    guard let handler = request.upgradeHandler else {
        upgraded.close()
        return
    }
    request.upgradeHandler = nil
    handler(upgraded)
}
