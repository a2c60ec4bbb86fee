import CGnuTLSShims
#if canImport(Glibc)
import Glibc
#endif

/// What every TLS connection to Redis trusts and presents, loaded once from
/// the settings: the CA certificates the server's certificate is verified
/// against, the client certificate and key (when the server asks for one),
/// and the name the server's certificate must be for.
package final class RedisTLSCredentials: Sendable {
    /// The name the server's certificate is verified against (and sent as
    /// SNI); empty: the host each connection is made to.
    package let serverName: String
    /// GnuTLS' credentials. Set up in `init` and never changed after, so
    /// sessions on any thread may share them: GnuTLS only reads credentials
    /// during handshakes, and documents them as safe to share once set.
    nonisolated(unsafe) let credentials: gnutls_certificate_credentials_t

    /// Loads the PEM CA certificates in `caFile` (empty: the system trust
    /// store) and, when both are set, the PEM client certificate chain in
    /// `certFile` with its PEM key in `keyFile`. Throws `RedisError.tls`
    /// naming the file that cannot be used, with GnuTLS' reason.
    package init(caFile: String, certFile: String, keyFile: String, serverName: String) throws(RedisError) {
        guard certFile.isEmpty == keyFile.isEmpty else {
            throw .tls("a client certificate needs both a certificate file and a key file")
        }
        var credentials: gnutls_certificate_credentials_t?
        let rc = gnutls_certificate_allocate_credentials(&credentials)
        guard rc == GNUTLS_E_SUCCESS, let credentials else { throw .tls("cannot allocate credentials: \(Self.reason(rc))") }
        self.credentials = credentials
        self.serverName = serverName
        if caFile.isEmpty {
            let loaded = gnutls_certificate_set_x509_system_trust(credentials)
            guard loaded > 0 else {
                throw .tls("no certificate in the system trust store" + (loaded < 0 ? ": \(Self.reason(loaded))" : ""))
            }
        } else {
            try Self.checkReadable(caFile, "CA file")
            let loaded = gnutls_certificate_set_x509_trust_file(credentials, caFile, GNUTLS_X509_FMT_PEM)
            guard loaded > 0 else { throw .tls("CA file \(caFile): " + (loaded < 0 ? Self.reason(loaded) : "no PEM certificate in it")) }
        }
        if !certFile.isEmpty {
            try Self.checkReadable(certFile, "certificate file")
            try Self.checkReadable(keyFile, "key file")
            let loaded = gnutls_certificate_set_x509_key_file(credentials, certFile, keyFile, GNUTLS_X509_FMT_PEM)
            guard loaded >= 0 else { throw .tls("certificate file \(certFile) with key file \(keyFile): \(Self.reason(loaded))") }
        }
    }

    deinit { gnutls_certificate_free_credentials(credentials) }

    /// GnuTLS' text for the error code `rc`.
    static func reason(_ rc: some BinaryInteger) -> String { String(cString: gnutls_strerror(Int32(rc))) }

    /// Throws naming the file and the system's reason when `path` cannot be
    /// read (GnuTLS only says "Error while reading file.").
    private static func checkReadable(_ path: String, _ role: String) throws(RedisError) {
        guard access(path, R_OK) == 0 else { throw .tls("cannot read \(role) \(path): \(String(cString: strerror(errno)))") }
    }
}
