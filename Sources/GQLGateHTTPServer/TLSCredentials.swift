/// The certificate chain and private key the server answers HTTPS (and
/// WSS) with, as PEM text; libmicrohttpd hands them to GnuTLS.
public struct TLSCredentials: Sendable, Equatable {
    /// The certificate, then any intermediates, PEM.
    public var certificatePEM: String
    /// The certificate's private key, PEM.
    public var keyPEM: String

    public init(certificatePEM: String, keyPEM: String) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }

    /// GnuTLS priorities: TLS 1.3 and 1.2 only, GnuTLS's NORMAL ciphers, the server's order.
    static let priorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:%SERVER_PRECEDENCE"
}
