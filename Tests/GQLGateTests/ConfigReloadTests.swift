import GQLGate
import Testing

@Suite struct ConfigReloadTests {
    @Test func reloadableSettingsAreTakenAsProposed() throws {
        let running = GatewayConfig()
        var proposed = running
        proposed.headers.forward = ["x-tenant"]
        proposed.upstream.url = "http://127.0.0.1:4001/graphql"
        proposed.limits.maxDepth = 3
        proposed.logging.level = .debug
        proposed.metrics.enabled = false
        proposed.server.drainTimeout = .seconds(1)
        let reload = ConfigReload(running: running, proposed: proposed)
        #expect(reload.effective == proposed)
        #expect(reload.needsRestart == [])
    }

    @Test func startOnlySettingsKeepTheirRunningValuesAndAreNamed() throws {
        var running = GatewayConfig()
        running.upstream.url = "http://127.0.0.1:4000/graphql"
        var proposed = running
        proposed.server.listen = try ListenAddress(parsing: "127.0.0.1:9999")
        proposed.server.threads = .fixed(4)
        proposed.server.loops = .fixed(2)
        proposed.server.maxConnections = 100
        proposed.server.maxBodyBytes = 10
        proposed.server.maxHeaderBytes = 8192
        proposed.server.idleTimeout = .seconds(5)
        proposed.server.headerTimeout = .seconds(5)
        proposed.server.bodyTimeout = .seconds(5)
        proposed.server.writeTimeout = .seconds(5)
        proposed.headers.forward = ["x-tenant"]
        let reload = ConfigReload(running: running, proposed: proposed)
        #expect(reload.needsRestart == [
            "server.listen", "server.threads", "server.loops", "server.max_connections", "server.max_body_bytes", "server.max_header_bytes",
            "server.idle_timeout", "server.header_timeout", "server.body_timeout", "server.write_timeout",
        ])
        #expect(reload.effective.server == running.server)
        #expect(reload.effective.headers.forward == ["x-tenant"])
    }

    @Test func newTLSFilesApplyButTurningTLSOrClientCertificatesOnOrOffWaitsForARestart() {
        var running = GatewayConfig()
        running.server.tls.certFile = "/tls/1/tls.crt"
        running.server.tls.keyFile = "/tls/1/tls.key"
        var moved = running
        moved.server.tls.certFile = "/tls/2/tls.crt"
        moved.server.tls.keyFile = "/tls/2/tls.key"
        let applied = ConfigReload(running: running, proposed: moved)
        #expect(applied.needsRestart.isEmpty && applied.effective.server.tls == moved.server.tls)

        var clientCertificates = running
        clientCertificates.server.tls.clientCAFile = "/tls/ca.crt"
        var off = running
        off.server.tls = TLSConfig()
        for proposed in [clientCertificates, off] {
            let reload = ConfigReload(running: running, proposed: proposed)
            #expect(reload.needsRestart == ["server.tls"] && reload.effective.server.tls == running.server.tls)
        }
        var caMoved = clientCertificates
        caMoved.server.tls.clientCAFile = "/tls/other-ca.crt"
        #expect(ConfigReload(running: clientCertificates, proposed: caMoved).needsRestart.isEmpty)
    }

    @Test func theAdminListenerWaitsForARestartButANewTokenFileApplies() throws {
        var running = GatewayConfig()
        running.admin.listen = try ListenAddress(parsing: "127.0.0.1:8088")
        running.admin.tokenFile = "/run/admin-token"
        var moved = running
        moved.admin.listen = try ListenAddress(parsing: "127.0.0.1:9099")
        moved.admin.tokenFile = "/run/other-admin-token"
        let reload = ConfigReload(running: running, proposed: moved)
        #expect(reload.needsRestart == ["admin.listen"])
        #expect(reload.effective.admin.listen == running.admin.listen)
        #expect(reload.effective.admin.tokenFile == "/run/other-admin-token")
        var off = running
        off.admin.listen = nil
        #expect(ConfigReload(running: running, proposed: off).needsRestart == ["admin.listen"])
    }

    @Test func anUnchangedFileChangesNothing() {
        let reload = ConfigReload(running: GatewayConfig(), proposed: GatewayConfig())
        #expect(reload.effective == GatewayConfig())
        #expect(reload.needsRestart.isEmpty)
    }
}
