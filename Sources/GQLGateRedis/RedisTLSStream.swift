import CGnuTLSShims
import GQLGateCore
#if canImport(Glibc)
import Glibc
#endif

/// A Redis connection's bytes through a GnuTLS client session on its
/// connected non-blocking socket. The handshake verifies the server's
/// certificate against the credentials' CA certificates and the expected
/// name. `wouldBlock` carries the direction GnuTLS was moving when the
/// socket stopped it (a read can need to write, and a write to read).
///
/// Loop-bound, like the connection that owns it.
final class RedisTLSStream: RedisStream {
    private let session: gnutls_session_t
    /// The name the certificate is verified against, kept for the session
    /// (GnuTLS holds on to the pointer, it does not copy the name).
    private let verifiedName: UnsafeMutablePointer<CChar>
    /// Kept alive as long as the session that uses them.
    private let credentials: RedisTLSCredentials
    /// The handshake is over: `handshake()` says `.done(0)` from then on.
    private var handshaken = false
    /// How many bytes the write GnuTLS answered `GNUTLS_E_AGAIN` to held: the
    /// next write must pass GnuTLS exactly as many again.
    private var pendingWrite: Int?

    /// A client session on `descriptor` (connected, non-blocking; the caller
    /// keeps and closes it) to `host`, the name or IP address connected to.
    /// The server's certificate must be for `credentials.serverName`, or
    /// `host` when that is empty; that name goes out as SNI when it is a DNS
    /// name (never an IP address).
    init(descriptor: Int32, credentials: RedisTLSCredentials, host: String) throws(RedisError) {
        let name = credentials.serverName.isEmpty ? host : credentials.serverName
        let verifiedName = strdup(name)!
        var session: gnutls_session_t?
        let rc = gqlgate_gnutls_client_session(&session, credentials.credentials, descriptor, verifiedName, isIPAddress(name) ? nil : name)
        guard rc == GNUTLS_E_SUCCESS, let session else {
            free(verifiedName)
            throw .tls("cannot start a session: \(RedisTLSCredentials.reason(rc))")
        }
        self.session = session
        self.verifiedName = verifiedName
        self.credentials = credentials
    }

    deinit {
        gnutls_deinit(session)
        free(verifiedName)
    }

    func handshake() -> RedisStreamStep {
        guard !handshaken else { return .done(0) }
        var rc: Int32
        // A non-fatal error (a warning alert) only asks for the handshake to go on.
        repeat { rc = gnutls_handshake(session) } while rc < 0 && !isRetry(rc) && gnutls_error_is_fatal(rc) == 0
        if rc == GNUTLS_E_SUCCESS {
            handshaken = true
            return .done(0)
        }
        if isRetry(rc) { return wouldBlock() }
        var reason = RedisTLSCredentials.reason(rc)
        if rc == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR {
            var text = [CChar](repeating: 0, count: 512)
            let length = gqlgate_gnutls_verification_failure(session, &text, text.count)
            if length > 0 {
                reason += " (" + String(decoding: text.prefix(length).map(UInt8.init(bitPattern:)), as: UTF8.self).trimmingASCIIWhitespace() + ")"
            }
        }
        return .failed("TLS handshake failed: " + reason + alert(rc))
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> RedisStreamStep {
        let count = gnutls_record_recv(session, buffer.baseAddress, buffer.count)
        if count > 0 { return .done(count) }
        if count == 0 || count == GNUTLS_E_PREMATURE_TERMINATION { return .closed }
        if isRetry(count) { return wouldBlock() }
        return .failed("TLS read failed: " + RedisTLSCredentials.reason(count) + alert(count))
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> RedisStreamStep {
        let length = pendingWrite ?? bytes.count
        precondition(length <= bytes.count, "a write after wouldBlock must pass the same bytes again")
        let count = gnutls_record_send(session, bytes.baseAddress, length)
        pendingWrite = isRetry(count) ? length : nil
        if count >= 0 { return .done(count) }
        if pendingWrite != nil { return wouldBlock() }
        return .failed("TLS write failed: " + RedisTLSCredentials.reason(count) + alert(count))
    }

    var hasBufferedBytes: Bool { gnutls_record_check_pending(session) > 0 }

    /// Whether `rc` asks for the call to be made again once the socket is ready.
    private func isRetry(_ rc: some BinaryInteger) -> Bool { rc == GNUTLS_E_AGAIN || rc == GNUTLS_E_INTERRUPTED }

    /// `.wouldBlock` for the direction GnuTLS was interrupted in.
    private func wouldBlock() -> RedisStreamStep { .wouldBlock(wantsWrite: gnutls_record_get_direction(session) == 1) }

    /// The alert the server sent, when `rc` says it sent one (" (Certificate is required)").
    private func alert(_ rc: some BinaryInteger) -> String {
        guard rc == GNUTLS_E_FATAL_ALERT_RECEIVED, let name = gnutls_alert_get_name(gnutls_alert_get(session)) else { return "" }
        return " (" + String(cString: name) + ")"
    }
}

@available(*, unavailable)
extension RedisTLSStream: Sendable {}

/// Whether `host` is an IPv4 or IPv6 address rather than a DNS name.
private func isIPAddress(_ host: String) -> Bool {
    var address = in6_addr()
    return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
}
