/// The certificate chain and private key the server answers HTTPS (and
/// WSS) with, as PEM text, and the CAs client certificates must be signed by.
package struct TLSCredentials: Sendable, Equatable {
    /// The certificate, then any intermediates, PEM.
    package var certificatePEM: String
    /// The certificate's private key, PEM (unencrypted).
    package var keyPEM: String
    /// The CA certificates that sign client certificates, PEM; nil: clients are not asked for one.
    package var clientAuthorityPEM: String?

    package init(certificatePEM: String, keyPEM: String, clientAuthorityPEM: String? = nil) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
        self.clientAuthorityPEM = clientAuthorityPEM
    }

    /// GnuTLS priorities: TLS 1.3 and 1.2 only, GnuTLS's NORMAL ciphers, the server's order.
    static let priorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:%SERVER_PRECEDENCE"
}
