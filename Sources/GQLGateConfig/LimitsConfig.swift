/// `limits`: the largest documents gqlgate passes on (beyond them: 400 `QUERY_TOO_COMPLEX`).
public struct LimitsConfig: Sendable, Equatable {
    /// `limits.max_depth`: the deepest nesting of field selections, fragments expanded, the root field
    /// counting 1. Default 15.
    public var maxDepth = 15
    /// `limits.max_aliases`: the most aliases in one document. Default 30.
    public var maxAliases = 30
    /// `limits.max_document_bytes`: the largest document. Default 64 KiB.
    public var maxDocumentBytes = 64 << 10
    /// `limits.introspection`: let operations select `__schema` and `__type` (`__typename` is always
    /// allowed; a document in `persisted_documents.manifests` may introspect either way). Default true.
    public var introspection = true

    /// The defaults.
    public init() {}
}

extension LimitsConfig {
    static let keys = ["max_depth", "max_aliases", "max_document_bytes", "introspection"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        maxDepth = try map["max_depth"]?.int(1...Int.max) ?? maxDepth
        maxAliases = try map["max_aliases"]?.int(0...Int.max) ?? maxAliases
        maxDocumentBytes = try map["max_document_bytes"]?.size(minimum: 1) ?? maxDocumentBytes
        introspection = try map["introspection"]?.bool() ?? introspection
    }
}
