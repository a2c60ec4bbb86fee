import Testing
@testable import GQLGateConfig

@Suite struct PersistedDocumentsConfigTests {
    @Test func defaults() {
        let config = GatewayConfig()
        #expect(config.persistedDocuments == PersistedDocumentsConfig())
        #expect(config.persistedDocuments.manifests.isEmpty)
        #expect(!config.persistedDocuments.safelist && !config.persistedDocuments.requireID && !config.persistedDocuments.logUnknown)
        #expect(config.limits.introspection)
    }

    @Test func readsEveryKey() throws {
        let config = try load("""
            persisted_documents: {manifests: [/etc/a.json, /etc/b.json], safelist: true, require_id: true, log_unknown: true}
            limits: {introspection: false}
            """)
        #expect(config.persistedDocuments.manifests == ["/etc/a.json", "/etc/b.json"])
        #expect(config.persistedDocuments.safelist && config.persistedDocuments.requireID && config.persistedDocuments.logUnknown)
        #expect(!config.limits.introspection)
    }

    @Test func rejectsBadValues() {
        #expect(loadError("persisted_documents: {manifests: /etc/a.json}")
            == #"persisted_documents.manifests: "/etc/a.json" is not valid: expected a list of file paths"#)
        #expect(loadError("persisted_documents: {safelist: yes please}")
            == #"persisted_documents.safelist: "yes please" is not valid: expected true or false"#)
        #expect(loadError("persisted_documents: {allowlist: true}")?.hasPrefix("persisted_documents.allowlist: unknown key") == true)
    }

    @Test func theSafelistAndRequireIDNeedManifests() throws {
        for key in ["safelist", "require_id"] {
            let config = try load("persisted_documents: {\(key): true}")
            #expect(thrownError { () throws(ConfigError) in try config.validate() }
                == "persisted_documents.\(key): needs persisted_documents.manifests (with none, no operation could run)")
        }
        try load("persisted_documents: {manifests: [m.json], safelist: true, require_id: true}").validate()
    }
}
