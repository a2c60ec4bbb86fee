/// `schema`: the upstream's schema, held at the edge to validate operations
/// before they go upstream.
public struct SchemaConfig: Sendable, Equatable {
    /// Where the schema comes from.
    public enum Source: String, Sendable, CaseIterable {
        /// No schema: gqlgate is schema-blind (the default).
        case none
        /// `schema.file`, an SDL file.
        case file
        /// The upstream's answer to the introspection query.
        case introspection
        /// `schema.file` when it is set, else introspection.
        case auto
    }

    /// `schema.source`. Default `none`.
    public var source = Source.none
    /// `schema.file`: an SDL file (it may carry `@deprecated` and the IBM
    /// cost directives), re-read when it changes and on SIGHUP. Default none.
    public var file: String?
    /// `schema.refresh`: how often introspection is asked again. Default 60s.
    public var refresh: Duration = .seconds(60)
    /// `schema.validate`: with a schema loaded, documents are validated and
    /// variables coerced before anything goes upstream; off, what would be
    /// refused is logged and passed on. Default true.
    public var validate = true

    /// The defaults.
    public init() {}

    /// Where the schema is read from once `source` is resolved (`auto`
    /// chooses the file when one is set); nil when schema-blind.
    public var effectiveSource: Source? {
        switch source {
        case .none: nil
        case .auto: file == nil ? .introspection : .file
        case .file, .introspection: source
        }
    }
}

extension SchemaConfig {
    static let keys = ["source", "file", "refresh", "validate"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        source = try map["source"]?.oneOf(Source.self) ?? source
        if let path = try map["file"]?.string(), !path.isEmpty { file = path }
        refresh = try map["refresh"]?.duration(positive: true) ?? refresh
        validate = try map["validate"]?.bool() ?? validate
    }
}
