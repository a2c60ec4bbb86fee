import Testing
@testable import GQLGateConfig

@Suite struct BrowserConfigTests {
    @Test func defaults() {
        let config = GatewayConfig()
        #expect(config.cors.allowOrigins.isEmpty && !config.cors.isEnabled && !config.cors.allowCredentials)
        #expect(config.cors.allowHeaders.isEmpty)
        #expect(config.cors.exposeHeaders == ["x-request-id", "x-cache"])
        #expect(config.cors.maxAge == .seconds(300))
        #expect(config.csrf.enabled)
        #expect(config.csrf.requiredHeaders == ["x-apollo-operation-name", "apollo-require-preflight"])
    }

    @Test func readsEveryKey() throws {
        let config = try load("""
            cors:
              allow_origins: [https://app.example.com, "http://localhost:3000"]
              allow_credentials: true
              allow_headers: [Content-Type, Authorization]
              expose_headers: [X-Request-Id]
              max_age: 1h
            csrf: {enabled: false, required_headers: [X-Requested-With]}
            """)
        try config.validate()
        #expect(config.cors.allowOrigins == ["https://app.example.com", "http://localhost:3000"])
        #expect(config.cors.allowCredentials && config.cors.isEnabled)
        #expect(config.cors.allowHeaders == ["content-type", "authorization"])
        #expect(config.cors.exposeHeaders == ["x-request-id"])
        #expect(config.cors.maxAge == .seconds(3600))
        #expect(!config.csrf.enabled && config.csrf.requiredHeaders == ["x-requested-with"])
    }

    @Test func rejectsWhatIsNotAnOrigin() {
        for origin in ["app.example.com", "https://app.example.com/", "https://app.example.com/graphql", "https://"] {
            #expect(loadError("cors: {allow_origins: [\"\(origin)\"]}")?.hasPrefix("cors.allow_origins[0]: \"\(origin)\" is not valid") == true)
        }
        #expect(loadError("csrf: {required_headers: [\"bad header\"]}")?.hasPrefix("csrf.required_headers[0]:") == true)
        #expect(loadError("cors: {origins: [\"*\"]}")?.hasPrefix("cors.origins: unknown key") == true)
    }

    @Test func aWildcardIsNeverWithCredentialsNorBesideOrigins() throws {
        let credentials = try load("cors: {allow_origins: [\"*\"], allow_credentials: true}")
        #expect(thrownError { () throws(ConfigError) in try credentials.validate() }?.hasPrefix("cors.allow_credentials: true with \"*\"") == true)
        let mixed = try load("cors: {allow_origins: [\"*\", \"https://a.example\"]}")
        #expect(thrownError { () throws(ConfigError) in try mixed.validate() } == "cors.allow_origins: \"*\" allows every origin: list it alone")
        try load("cors: {allow_origins: [\"*\"]}").validate()
    }
}

@Suite struct CompressionConfigTests {
    @Test func defaults() {
        let config = GatewayConfig().compression
        #expect(config.enabled && config.minBytes == 1024 && config.algorithms == [.br, .gzip])
    }

    @Test func readsEveryKey() throws {
        let config = try load("compression: {enabled: false, min_bytes: 4KiB, algorithms: [gzip]}").compression
        #expect(!config.enabled && config.minBytes == 4096 && config.algorithms == [.gzip])
    }

    @Test func rejectsUnknownAndRepeatedCodings() {
        #expect(loadError("compression: {algorithms: [zstd]}") == #"compression.algorithms[0]: "zstd" is not valid: expected one of br, gzip"#)
        #expect(loadError("compression: {algorithms: [gzip, gzip]}") == #"compression.algorithms[1]: "gzip" is not valid: expected each coding once"#)
    }
}

@Suite struct TLSConfigTests {
    @Test func offByDefault() {
        #expect(!GatewayConfig().server.tls.isEnabled)
        #expect(GatewayConfig().server.tls == TLSConfig())
    }

    @Test func readsTheFilesAndNeedsBoth() throws {
        let config = try load("server: {tls: {cert_file: /tls/crt.pem, key_file: /tls/key.pem}}")
        try config.validate()
        #expect(config.server.tls.isEnabled && config.server.tls.certFile == "/tls/crt.pem" && config.server.tls.keyFile == "/tls/key.pem")
        let certOnly = try load("server: {tls: {cert_file: /tls/crt.pem}}")
        #expect(thrownError { () throws(ConfigError) in try certOnly.validate() }
            == "server.tls.key_file: required with server.tls.cert_file: set both or neither")
        let keyOnly = try load("server: {tls: {key_file: /tls/key.pem}}")
        #expect(thrownError { () throws(ConfigError) in try keyOnly.validate() }?.hasPrefix("server.tls.cert_file: required") == true)
    }

    @Test func clientCertificatesComeWithTLS() throws {
        let config = try load("server: {tls: {cert_file: a, key_file: b, client_ca_file: ca}}")
        try config.validate()
        #expect(config.server.tls.requiresClientCertificates && config.server.tls.clientCAFile == "ca")
        let withoutTLS = try load("server: {tls: {client_ca_file: ca}}")
        #expect(!withoutTLS.server.tls.requiresClientCertificates)
        #expect(thrownError { () throws(ConfigError) in try withoutTLS.validate() }
            == "server.tls.client_ca_file: needs server.tls.cert_file and key_file (client certificates come with TLS)")
    }
}
