public import GQLGateCore

/// `compression`: answers compressed for clients that accept it.
public struct CompressionConfig: Sendable, Equatable {
    /// `compression.enabled`: compress answers of `min_bytes` or more for clients whose
    /// `Accept-Encoding` allows one of `algorithms`. Default true.
    public var enabled = true
    /// `compression.min_bytes`: smaller answers are sent as they are. Default 1KiB.
    public var minBytes = 1024
    /// `compression.algorithms`: codings offered, in order of preference (the client's
    /// q-values rank first). Default `[br, gzip]`.
    public var algorithms: [ContentCoding] = [.br, .gzip]

    /// The defaults.
    public init() {}
}

extension CompressionConfig {
    static let keys = ["enabled", "min_bytes", "algorithms"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        enabled = try map["enabled"]?.bool() ?? enabled
        minBytes = try map["min_bytes"]?.size() ?? minBytes
        if let list = map["algorithms"] {
            algorithms = []
            for element in try list.list(of: "codings (br, gzip)") {
                let coding = try element.oneOf(ContentCoding.self)
                guard !algorithms.contains(coding) else { throw element.invalid("each coding once", value: coding.rawValue) }
                algorithms.append(coding)
            }
        }
    }
}
