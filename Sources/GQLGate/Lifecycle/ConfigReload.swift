import GQLGateConfig

/// What a reload applies: the proposed configuration, except the settings
/// that take effect only at start (the listen addresses, server threads and
/// loops, the connection limit, the body and header limits, the connection
/// timeouts, TLS or client certificates turned on or off, the admin
/// listener), which keep their running values until a restart. New
/// `server.tls` file paths apply, and so does a new `admin.token_file`.
public struct ConfigReload: Sendable, Equatable {
    /// The configuration to run with from now on.
    public let effective: GatewayConfig
    /// The keys whose new values wait for a restart, e.g. `server.listen`.
    public let needsRestart: [String]

    /// - Parameters:
    ///   - running: the configuration in use.
    ///   - proposed: the configuration just loaded and validated.
    package init(running: GatewayConfig, proposed: GatewayConfig) {
        var effective = proposed
        var needsRestart: [String] = []
        func keep<Value: Equatable>(_ key: String, _ path: WritableKeyPath<GatewayConfig, Value>) {
            guard running[keyPath: path] != proposed[keyPath: path] else { return }
            needsRestart.append(key)
            effective[keyPath: path] = running[keyPath: path]
        }
        keep("server.listen", \.server.listen)
        keep("upstream.max_response_bytes_in_flight", \.upstream.maxResponseBytesInFlight)
        keep("server.threads", \.server.threads)
        keep("server.loops", \.server.loops)
        keep("server.max_connections", \.server.maxConnections)
        keep("server.max_body_bytes", \.server.maxBodyBytes)
        keep("server.max_header_bytes", \.server.maxHeaderBytes)
        keep("server.idle_timeout", \.server.idleTimeout)
        keep("server.header_timeout", \.server.headerTimeout)
        keep("server.body_timeout", \.server.bodyTimeout)
        keep("server.write_timeout", \.server.writeTimeout)
        keep("admin.listen", \.admin.listen)
        let tls = (running.server.tls, proposed.server.tls)
        if tls.0.isEnabled != tls.1.isEnabled || tls.0.requiresClientCertificates != tls.1.requiresClientCertificates {
            needsRestart.append("server.tls")
            effective.server.tls = running.server.tls
        }
        self.effective = effective
        self.needsRestart = needsRestart
    }
}
