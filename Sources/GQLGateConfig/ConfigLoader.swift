#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Yams

/// Reads gqlgate configurations from YAML files, flags and environment variables.
///
/// The usual order is ``configPath(flag:environment:)``, ``load(file:environment:)``,
/// ``GatewayConfig/applying(_:)`` with the flags merged over ``ConfigOverrides/environment(_:)``, then
/// ``GatewayConfig/validate()``; ``resolve(configFlag:flags:environment:)`` does all of it.
public enum ConfigLoader {
    /// The environment variable naming the config file.
    public static let configEnvironmentVariable = "GQLGATE_CONFIG"

    /// Reads a configuration from YAML text. Empty text or `~` gives every default; every key is
    /// optional; unknown keys are errors. Does not run ``GatewayConfig/validate()``.
    /// - Parameters:
    ///   - yaml: The text of a config file.
    ///   - environment: The variables that `${VAR}` references are expanded from.
    /// - Throws: A ``ConfigError`` naming the key, the bad value and what is allowed.
    public static func load(yaml: String, environment: [String: String]) throws(ConfigError) -> GatewayConfig {
        guard let root = try compose(yaml: yaml, environment: environment) else { return GatewayConfig() }
        return try GatewayConfig(yaml: root)
    }

    /// The document root of `yaml`, or nil for an empty document.
    static func compose(yaml: String, environment: [String: String]) throws(ConfigError) -> YAMLValue? {
        do {
            return try Yams.compose(yaml: yaml).map { YAMLValue(node: $0, path: "", environment: environment) }
        } catch {
            throw ConfigError(keyPath: "", message: describe(error))
        }
    }

    /// Reads a configuration from a YAML file (see ``load(yaml:environment:)``).
    /// - Parameters:
    ///   - path: The file's path.
    ///   - environment: The variables that `${VAR}` references are expanded from.
    /// - Throws: A ``ConfigError`` naming `path` when the file cannot be read, else as ``load(yaml:environment:)``.
    public static func load(file path: String, environment: [String: String]) throws(ConfigError) -> GatewayConfig {
        try load(yaml: readFile(path), environment: environment)
    }

    /// The config file to read: `flag` (`--config`), else `GQLGATE_CONFIG`, else nil (all defaults).
    /// - Parameters:
    ///   - flag: The value of `--config`, if given.
    ///   - environment: The process environment.
    public static func configPath(flag: String?, environment: [String: String]) -> String? {
        if let flag, !flag.isEmpty { return flag }
        if let path = environment[configEnvironmentVariable], !path.isEmpty { return path }
        return nil
    }

    /// The effective configuration: the config file (if any) with the environment overrides and
    /// then the flags laid over it, validated.
    /// - Parameters:
    ///   - configFlag: The value of `--config`, if given.
    ///   - flags: The values of `--listen`, `--upstream`, `--upstream-ws` and `--log-level`.
    ///   - environment: The process environment.
    /// - Throws: The first ``ConfigError`` found.
    public static func resolve(
        configFlag: String?,
        flags: ConfigOverrides,
        environment: [String: String]
    ) throws(ConfigError) -> GatewayConfig {
        var config = GatewayConfig()
        if let path = configPath(flag: configFlag, environment: environment) {
            config = try load(file: path, environment: environment)
        }
        config = try config.applying(flags.merged(over: .environment(environment)))
        try config.validate()
        return config
    }

    /// A one-line description of a YAML syntax error, with its position.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case YamlError.scanner(_, let problem, let mark, _),
             YamlError.parser(_, let problem, let mark, _),
             YamlError.composer(_, let problem, let mark, _):
            "invalid YAML at line \(mark.line), column \(mark.column): \(problem)"
        case YamlError.duplicatedKeysInMapping(let duplicates, let context):
            "invalid YAML at line \(context.mark.line), column \(context.mark.column): duplicate key "
                + duplicates.map(ConfigError.quoted).joined(separator: ", ")
        case YamlError.reader(let problem, _, _, _):
            "invalid YAML: \(problem)"
        default:
            "invalid YAML: \(error)"
        }
    }

    /// The text of the file at `path`.
    private static func readFile(_ path: String) throws(ConfigError) -> String {
        func failure(_ reason: String) -> ConfigError {
            ConfigError(keyPath: "", message: "cannot read config file \(path): \(reason)")
        }
        guard let file = fopen(path, "rb") else { throw failure(String(cString: strerror(errno))) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[..<count]
            guard count == chunk.count else { break }
        }
        if ferror(file) != 0 { throw failure(String(cString: strerror(errno))) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw failure("it is not UTF-8 text") }
        return text
    }
}
