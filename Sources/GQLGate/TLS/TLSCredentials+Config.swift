import GQLGateConfig
import GQLGateCore
import GQLGateHTTPServer

extension TLSCredentials {
    /// The certificate, key and client CAs `config` names, read from `files`
    /// (the cert, key and client CA files, in that order; each one's stamp is
    /// taken before it is read, so a change while reading is seen next time).
    init(_ config: TLSConfig, files: inout [WatchedFile], now: UInt64) throws(ConfigError) {
        let keys = ["cert_file", "key_file", "client_ca_file"]
        var texts: [String] = []
        for index in files.indices {
            guard let text = files[index].read(now: now), text.contains("-----BEGIN ") else {
                throw ConfigError(keyPath: "server.tls.\(keys[index])", message: "\"\(files[index].path)\" cannot be read as a PEM file")
            }
            texts.append(text)
        }
        self.init(certificatePEM: texts[0], keyPEM: texts[1], clientAuthorityPEM: texts.count > 2 ? texts[2] : nil)
    }

    /// The files `config` names, to be read by `init(_:files:now:)`.
    static func files(_ config: TLSConfig) -> [WatchedFile] {
        let paths = [config.certFile, config.keyFile] + (config.requiresClientCertificates ? [config.clientCAFile] : [])
        return paths.map { WatchedFile(path: $0) }
    }
}

extension ConfigError {
    /// `error` placed at the `server.tls` key of the file at fault.
    init(_ error: TLSCredentialsError) {
        let key = switch error.file {
        case .certificate: "cert_file"
        case .key: "key_file"
        case .clientAuthority: "client_ca_file"
        }
        self.init(keyPath: "server.tls.\(key)", message: error.message)
    }
}
