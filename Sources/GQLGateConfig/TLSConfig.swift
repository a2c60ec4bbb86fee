/// `server.tls`: HTTPS and WSS on the listen address.
public struct TLSConfig: Sendable, Equatable {
    /// `server.tls.cert_file`: the certificate chain, PEM. Default none: plain HTTP.
    public var certFile = ""
    /// `server.tls.key_file`: its private key, PEM. Set with `cert_file`.
    public var keyFile = ""
    /// `server.tls.client_ca_file`: the CA certificates (PEM) that sign client certificates;
    /// set, every request must come over a connection whose client presented one they signed.
    /// Default none: clients are not asked for a certificate.
    public var clientCAFile = ""

    /// The defaults.
    public init() {}

    /// Whether the listener speaks TLS.
    public var isEnabled: Bool { !certFile.isEmpty }

    /// Whether clients must present a certificate `client_ca_file` signed.
    public var requiresClientCertificates: Bool { isEnabled && !clientCAFile.isEmpty }
}

extension TLSConfig {
    static let keys = ["cert_file", "key_file", "client_ca_file"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        certFile = try map["cert_file"]?.string() ?? certFile
        keyFile = try map["key_file"]?.string() ?? keyFile
        clientCAFile = try map["client_ca_file"]?.string() ?? clientCAFile
    }
}
