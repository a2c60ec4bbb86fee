import GQLGateConfig
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Logging

/// Keeps the schema gqlgate validates against (`GatewaySchema`) current,
/// from `schema.source`, for one pipeline:
/// - a file is read when the pipeline is made (`loadFile`: a file that
///   cannot be read or built stops the start, or the reload), then again
///   whenever it changes (checked each second), keeping the schema held when
///   the new text does not build;
/// - introspection is asked when the pipeline starts serving, through the
///   upstream stages (credentials, retries); again after 1 s, doubling up to
///   30 s, while the upstream does not answer (a sidecar may start before its
///   app); then every `schema.refresh`, and once early when a document names
///   what the schema lacks (at most once a period).
///
/// Each read is stated as a `GatewayFact` (`gqlgate_schema_refreshes_total`,
/// `gqlgate_schema_loaded`); a change of state is logged once. The response
/// cache's `EntitySchema` comes from the same schema, and each new schema
/// checks the persisted documents (`PersistedDocumentsCheck`).
final class SchemaLoading: Sendable {
    private let settings: SchemaConfig
    private let schema: GatewaySchema
    private let chain: ExchangeChain
    private let entities: EntitySchemaSource?
    private let persistedDocuments: PersistedDocumentLibrary?
    private let recorder: any FactRecorder
    private let logger: Logger
    private let task = Lock<Task<Void, Never>?>(nil)
    private let state: Lock<State>

    private struct State {
        var file: WatchedFile?
        /// When the last early refresh began (monotonic nanoseconds); 0: never.
        var lastEarlyRefresh: UInt64 = 0
        /// The early refresh under way, which other callers wait for.
        var earlyRefresh: Task<Void, Never>?
        /// Whether the last read failed (a change of state is logged once).
        var failing = false
    }

    /// The schema file's largest size.
    static let fileSizeLimit = 16 << 20

    /// - Parameters:
    ///   - schema: where loaded schemas go (kept across reloads that keep `schema`).
    ///   - chain: the stages introspection queries take, and the transport.
    ///   - entities: the response cache's schema source, fed from the same schema.
    ///   - persistedDocuments: the manifests' documents, checked against each new schema.
    init(settings: SchemaConfig, schema: GatewaySchema, chain: ExchangeChain, entities: EntitySchemaSource?,
         persistedDocuments: PersistedDocumentLibrary?, recorder: any FactRecorder, logger: Logger) {
        self.settings = settings
        self.schema = schema
        self.chain = chain
        self.entities = entities
        self.persistedDocuments = persistedDocuments
        self.recorder = recorder
        self.logger = logger
        state = Lock(State(file: settings.effectiveSource == .file ? settings.file.map {
            WatchedFile(path: $0, checkInterval: .seconds(1), sizeLimit: Self.fileSizeLimit)
        } : nil))
        if let held = schema.current { entities?.update(held.entitySchema) }
    }

    /// Reads `schema.file` now and installs what it holds.
    /// - Throws: `ConfigError` at `schema.file` when it cannot be read or does not build a schema.
    func loadFile() throws(ConfigError) {
        guard let path = settings.file else { return }
        let text = state.withLock { $0.file?.read(now: GatewayClock.system.monotonicNanoseconds()) }
        do {
            install(try Self.build(text, path: path), trigger: "start")
        } catch {
            recorder.record(.schemaRefreshed(.failed, holdsSchema: schema.current != nil))
            throw ConfigError(keyPath: "schema.file", message: error.reason)
        }
    }

    /// The schema in a schema file's text (nil: it could not be read).
    static func build(_ text: String?, path: String) throws(SchemaLoadError) -> LoadedSchema {
        guard let text else { throw SchemaLoadError("\"\(path)\" cannot be read") }
        do {
            return try LoadedSchema(sdl: text)
        } catch {
            throw SchemaLoadError("\"\(path)\" is not a schema: \(error.reason)")
        }
    }

    /// Starts keeping the schema current, and answering early refreshes.
    func start() {
        schema.setEarlyRefresh { [weak self] in await self?.refreshEarly() }
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in
                switch settings.effectiveSource {
                case .file?: await watchFile()
                case .introspection?: await introspectEvery()
                default: return
                }
            }
        }
    }

    /// Stops (the pipeline was replaced, or the gateway stops).
    func stop() {
        task.withLock { $0?.cancel() }
        state.withLock { $0.earlyRefresh?.cancel() }
    }

    // MARK: - Reading the source

    private func watchFile() async {
        while !Task.isCancelled {
            try? await EventLoop.sleep(for: .seconds(1))
            let changed = state.withLock { $0.file?.hasChanged(now: GatewayClock.system.monotonicNanoseconds()) ?? false }
            if changed { readFile(trigger: "file change") }
        }
    }

    private func readFile(trigger: String) {
        guard let path = settings.file else { return }
        let text = state.withLock { $0.file?.read(now: GatewayClock.system.monotonicNanoseconds()) }
        do {
            install(try Self.build(text, path: path), trigger: trigger)
        } catch {
            failed(error.reason, trigger: trigger)
        }
    }

    private func introspectEvery() async {
        var delay = Duration.seconds(1)
        while !Task.isCancelled {
            switch await introspect(trigger: schema.current == nil ? "start" : "refresh") {
            case .unanswered:
                try? await EventLoop.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            case .done:
                delay = .seconds(1)
                try? await EventLoop.sleep(for: settings.refresh)
            }
        }
    }

    private enum Attempt {
        /// A schema, or an answer that refused one: ask again at the next refresh.
        case done
        /// No answer: ask again soon.
        case unanswered
    }

    private func introspect(trigger: String) async -> Attempt {
        switch await SchemaIntrospection.ask(IntrospectionSDL.query, through: chain) {
        case .success(let data):
            guard let sdl = IntrospectionSDL.sdl(fromIntrospection: data) else {
                failed("the upstream's introspection answer has no schema", trigger: trigger)
                return .done
            }
            do {
                install(try LoadedSchema(sdl: sdl), trigger: trigger)
            } catch {
                failed("the upstream's schema does not build: \(error.reason)", trigger: trigger)
            }
            return .done
        case .failure(.refused(let reason)):
            failed(reason, trigger: trigger)
            return .done
        case .failure(.unanswered(let reason)):
            failed(reason, trigger: trigger)
            return .unanswered
        }
    }

    /// One early refresh a period: callers while it runs wait for it; later ones in the period return at once.
    private func refreshEarly() async {
        let now = GatewayClock.system.monotonicNanoseconds()
        let refresh = state.withLock { state -> Task<Void, Never>? in
            if let running = state.earlyRefresh { return running }
            guard state.lastEarlyRefresh == 0 || now &- state.lastEarlyRefresh >= UInt64(settings.refresh.nanoseconds) else { return nil }
            state.lastEarlyRefresh = now
            let task = Task { [self] in
                switch settings.effectiveSource {
                case .file?: readFile(trigger: "unknown field")
                case .introspection?: _ = await introspect(trigger: "unknown field")
                default: break
                }
                self.state.withLock { $0.earlyRefresh = nil }
            }
            state.earlyRefresh = task
            return task
        }
        await refresh?.value
    }

    // MARK: - Outcomes

    private func install(_ loaded: LoadedSchema, trigger: String) {
        let held = schema.current
        let recovered = state.withLock { state in
            defer { state.failing = false }
            return state.failing
        }
        guard held?.sdlSHA256 != loaded.sdlSHA256 else {
            recorder.record(.schemaRefreshed(.unchanged, holdsSchema: true))
            if recovered { logger.info("schema source readable again", metadata: ["source": .string(sourceName), "trigger": .string(trigger)]) }
            return
        }
        schema.install(loaded)
        entities?.update(loaded.entitySchema)
        if let documents = persistedDocuments?.documents { PersistedDocumentsCheck(logger: logger).report(documents, against: loaded) }
        recorder.record(.schemaRefreshed(.loaded, holdsSchema: true))
        logger.info(held == nil ? "schema loaded" : "schema changed", metadata: [
            "source": .string(sourceName), "trigger": .string(trigger), "types": .stringConvertible(loaded.schema.typeMap.count),
            "sha256": .string(loaded.sdlSHA256), "validate": .stringConvertible(settings.validate),
        ])
    }

    private func failed(_ reason: String, trigger: String) {
        let holdsSchema = schema.current != nil
        recorder.record(.schemaRefreshed(.failed, holdsSchema: holdsSchema))
        let first = state.withLock { state in
            defer { state.failing = true }
            return !state.failing
        }
        guard first else { return }
        logger.warning(holdsSchema ? "schema refresh failed" : "schema not loaded", metadata: [
            "source": .string(sourceName), "trigger": .string(trigger), "reason": .string(reason),
            "serving": .string(holdsSchema ? "with the schema held" : "schema-blind until a schema loads"),
        ])
    }

    private var sourceName: String {
        settings.effectiveSource == .file ? "file \(settings.file ?? "")" : "introspection"
    }
}
