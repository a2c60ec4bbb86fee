/// The least severe level that is logged.
public enum LogLevel: String, Sendable, Equatable, CaseIterable {
    /// Everything, including per-request detail.
    case trace
    /// Detail useful when debugging.
    case debug
    /// Normal operation.
    case info
    /// Something unexpected that gqlgate handled.
    case warn
    /// Something failed.
    case error
}

/// How log lines are written.
public enum LogFormat: String, Sendable, Equatable, CaseIterable {
    /// One JSON object a line.
    case json
    /// Human-readable text.
    case text
}

/// `logging`: what gqlgate logs, and how.
public struct LoggingConfig: Sendable, Equatable {
    /// `logging.level`: the least severe level logged. Default `info`; `--log-level` and
    /// `GQLGATE_LOG_LEVEL` override it.
    public var level = LogLevel.info
    /// `logging.format`: `json` or `text`. Default `json`.
    public var format = LogFormat.json

    /// The defaults.
    public init() {}
}

extension LoggingConfig {
    static let keys = ["level", "format"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        level = try map["level"]?.oneOf(LogLevel.self) ?? level
        format = try map["format"]?.oneOf(LogFormat.self) ?? format
    }
}
