/// `server.tls`: HTTPS and WSS on the listen address.
public struct TLSConfig: Sendable, Equatable {
    /// `server.tls.cert_file`: the certificate chain, PEM. Default none: plain HTTP.
    public var certFile = ""
    /// `server.tls.key_file`: its private key, PEM. Set with `cert_file`.
    public var keyFile = ""
    /// `server.tls.client_ca_file`: clients must present a certificate this CA signed. Not
    /// supported yet: setting it is a configuration error.
    public var clientCAFile = ""

    /// The defaults.
    public init() {}

    /// Whether the listener speaks TLS.
    public var isEnabled: Bool { !certFile.isEmpty }
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
