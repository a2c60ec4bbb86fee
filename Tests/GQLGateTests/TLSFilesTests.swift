import GQLGateConfig
@_spi(GQLGateInternals) import GQLGateCore
@testable import GQLGate
import Testing

/// The `server.tls` files watched: a new pair is served once the files
/// change and a second has passed, a bad pair keeps the one served, and a
/// link swapped to another file counts as a change.
@Suite struct TLSFilesTests {
    let directory = TemporaryDirectory()
    let time = ManualClock()

    func config(cert: String = "tls.crt", key: String = "tls.key") -> TLSConfig {
        var config = TLSConfig()
        config.certFile = directory.path + "/" + cert
        config.keyFile = directory.path + "/" + key
        return config
    }

    /// `one.crt`, `one.key`, `two.crt`, `two.key`.
    func writeBothPairs() {
        directory.write("one.crt", TLSFixtures.oneCertificate)
        directory.write("one.key", TLSFixtures.oneKey)
        directory.write("two.crt", TLSFixtures.twoCertificate)
        directory.write("two.key", TLSFixtures.twoKey)
    }

    func files(_ config: TLSConfig) throws -> TLSFiles {
        try #require(try TLSFiles(config, clock: time.clock))
    }

    @Test func aChangedPairIsServedOnceASecondHasPassed() throws {
        directory.write("tls.crt", TLSFixtures.oneCertificate)
        directory.write("tls.key", TLSFixtures.oneKey)
        let files = try files(config())
        #expect(files.store.current?.subject == "CN=fixture-one")
        #expect(files.checkForChanges() == nil)

        directory.write("tls.crt", TLSFixtures.twoCertificate)
        directory.write("tls.key", TLSFixtures.twoKey)
        #expect(files.checkForChanges() == nil)  // looked at less than a second ago
        time.advance(by: .seconds(1))
        guard case .replaced(let summary) = files.checkForChanges() else { Issue.record("not replaced"); return }
        #expect(summary?.subject == "CN=fixture-two" && summary == files.store.current)
        time.advance(by: .seconds(1))
        #expect(files.checkForChanges() == nil)  // nothing changed since
    }

    @Test func aBadPairKeepsTheServedOneUntilTheFilesAreRight() throws {
        directory.write("tls.crt", TLSFixtures.oneCertificate)
        directory.write("tls.key", TLSFixtures.oneKey)
        let files = try files(config())
        directory.write("tls.crt", TLSFixtures.twoCertificate)  // the key not replaced yet
        time.advance(by: .seconds(1))
        guard case .kept(let error) = files.checkForChanges() else { Issue.record("not kept"); return }
        #expect(error.keyPath == "server.tls.key_file" && error.message.contains("does not match"))
        #expect(files.store.current?.subject == "CN=fixture-one")
        time.advance(by: .seconds(1))
        #expect(files.checkForChanges() == nil)  // the failure is not retried until a file changes again

        directory.write("tls.key", "-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n")
        time.advance(by: .seconds(1))
        #expect(files.checkForChanges().map(Self.keyPath) == "server.tls.key_file")
        directory.write("tls.crt", "not PEM")
        #expect(files.reload(config()) == .kept(ConfigError(
            keyPath: "server.tls.cert_file", message: "\"\(directory.path)/tls.crt\" cannot be read as a PEM file")))
        #expect(files.store.current?.subject == "CN=fixture-one")

        directory.write("tls.crt", TLSFixtures.twoCertificate)
        directory.write("tls.key", TLSFixtures.twoKey)
        time.advance(by: .seconds(1))
        #expect(files.checkForChanges() == .replaced(files.store.current))
        #expect(files.store.current?.subject == "CN=fixture-two")
    }

    @Test func aLinkSwappedToOtherFilesIsAChange() throws {
        writeBothPairs()
        directory.link("tls.crt", to: "one.crt")
        directory.link("tls.key", to: "one.key")
        let files = try files(config())
        directory.link("tls.crt", to: "two.crt")
        directory.link("tls.key", to: "two.key")
        time.advance(by: .seconds(1))
        #expect(files.checkForChanges() != nil)
        #expect(files.store.current?.subject == "CN=fixture-two")
    }

    @Test func aReloadReadsTheFilesANewConfigNames() throws {
        writeBothPairs()
        let files = try files(config(cert: "one.crt", key: "one.key"))
        #expect(files.reload(config(cert: "two.crt", key: "two.key")) == .replaced(files.store.current))
        #expect(files.store.current?.subject == "CN=fixture-two")
    }

    @Test func startRefusesFilesThatCannotBeUsed() throws {
        directory.write("one.crt", TLSFixtures.oneCertificate)
        directory.write("one.key", TLSFixtures.oneKey)
        directory.write("two.key", TLSFixtures.twoKey)
        #expect(startError(config(cert: "one.crt", key: "two.key"))?.keyPath == "server.tls.key_file")
        var withCA = config(cert: "one.crt", key: "one.key")
        withCA.clientCAFile = directory.path + "/one.key"  // a key: no CA certificate in it
        #expect(startError(withCA)?.keyPath == "server.tls.client_ca_file")
        withCA.clientCAFile = directory.path + "/one.crt"
        #expect(startError(withCA) == nil)
        #expect(try TLSFiles(TLSConfig(), clock: time.clock) == nil)
    }

    private func startError(_ config: TLSConfig) -> ConfigError? {
        do {
            _ = try TLSFiles(config, clock: time.clock)
            return nil
        } catch {
            return error
        }
    }

    private static func keyPath(_ outcome: TLSFiles.Outcome) -> String? {
        guard case .kept(let error) = outcome else { return nil }
        return error.keyPath
    }
}
