import GQLGateConfig
import GQLGateCore
import GQLGateExchanges
import GQLGateMetrics
import GQLGatePipeline
import Logging

/// The stages of `persisted_documents` and `limits.introspection`, for
/// their slots (`PipelineSlot.persistedDocuments`, `.safelist`): none at all
/// when no manifest is configured and introspection is allowed.
struct PersistedDocumentsAssembly: Sendable {
    /// Requests by id and `require_id`, when manifests are configured.
    let byID: PersistedDocumentExchange?
    /// The safelist, `log_unknown` and introspection rules, when any applies.
    let safelist: SafelistExchange?
    /// Whether APQ may register new text (not while the safelist is on).
    let apqRegisters: Bool
    /// The manifests' documents, when manifests are configured.
    let library: PersistedDocumentLibrary?

    /// Reads every manifest into `cache`; a file that cannot be used is a
    /// config error naming it and the entry. Each set read is checked against
    /// the schema `schema` holds, if any.
    init(config: GatewayConfig, cache: DocumentCache, schema: GatewaySchema?, logger: Logger) throws(ConfigError) {
        let settings = config.persistedDocuments
        let rules = SafelistExchange.Rules(
            safelist: settings.safelist, logUnknown: settings.logUnknown, introspection: config.limits.introspection)
        apqRegisters = !settings.safelist
        let check = PersistedDocumentsCheck(logger: logger)
        library = try Self.library(settings, cache: cache, logger: logger) { documents in
            if let loaded = schema?.current { check.report(documents, against: loaded) }
        }
        guard let library else {
            byID = nil
            safelist = rules.introspection ? nil : SafelistExchange(library: nil, rules: rules)
            return
        }
        byID = PersistedDocumentExchange(library: library, requireID: settings.requireID)
        safelist = SafelistExchange(library: library, rules: rules)
    }

    /// Every manifest of `settings`, read into `cache`; a file that cannot be used is a config
    /// error naming it and the entry. Nil when there is none.
    static func library(_ settings: PersistedDocumentsConfig, cache: DocumentCache, logger: Logger,
                        onLoad: @escaping @Sendable (PersistedDocumentSet) -> Void = { _ in }) throws(ConfigError) -> PersistedDocumentLibrary? {
        guard !settings.manifests.isEmpty else { return nil }
        do {
            return try PersistedDocumentLibrary(paths: settings.manifests, cache: cache, onReloadFailure: { failure in
                logger.error("A persisted documents manifest changed but cannot be used; the documents read last stay",
                             metadata: ["problem": "\(failure)"])
            }, onLoad: onLoad)
        } catch {
            throw ConfigError(keyPath: "persisted_documents.manifests", message: error.description)
        }
    }
}
