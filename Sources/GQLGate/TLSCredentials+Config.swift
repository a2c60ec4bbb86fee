import GQLGateConfig
import GQLGateCore
import GQLGateHTTPServer

extension TLSCredentials {
    /// The certificate and key `server.tls` names, read now; nil when TLS is off.
    init?(_ config: TLSConfig) throws(ConfigError) {
        guard config.isEnabled else { return nil }
        func pem(_ path: String, key: String) throws(ConfigError) -> String {
            guard let text = FileText.read(path), text.contains("-----BEGIN ") else {
                throw ConfigError(keyPath: "server.tls.\(key)", message: "\"\(path)\" cannot be read as a PEM file")
            }
            return text
        }
        self.init(certificatePEM: try pem(config.certFile, key: "cert_file"), keyPEM: try pem(config.keyFile, key: "key_file"))
    }
}
