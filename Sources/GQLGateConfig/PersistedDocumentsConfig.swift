/// `persisted_documents`: the operations clients may send by id, and whether only those run.
public struct PersistedDocumentsConfig: Sendable, Equatable {
    /// `persisted_documents.manifests`: manifest files, each an Apollo persisted query manifest or a
    /// Relay-style map of id to document text (told apart by shape). Re-read on SIGHUP and when a file
    /// changes. Default none (the feature is off).
    public var manifests: [String] = []
    /// `persisted_documents.safelist`: only documents in the manifests run, sent by id or as text.
    /// Default false.
    public var safelist = false
    /// `persisted_documents.require_id`: clients must send an id, never text. Default false.
    public var requireID = false
    /// `persisted_documents.log_unknown`: log the name and SHA-256 of operations not in the
    /// manifests. Default false.
    public var logUnknown = false

    /// The defaults.
    public init() {}
}

extension PersistedDocumentsConfig {
    static let keys = ["manifests", "safelist", "require_id", "log_unknown"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        if let files = map["manifests"] {
            manifests = []
            for file in try files.list(of: "file paths") { manifests.append(try file.string()) }
        }
        safelist = try map["safelist"]?.bool() ?? safelist
        requireID = try map["require_id"]?.bool() ?? requireID
        logUnknown = try map["log_unknown"]?.bool() ?? logUnknown
    }
}
