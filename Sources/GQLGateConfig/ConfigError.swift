import GQLGateCore

/// A problem with the configuration: which key, and what is wrong with it.
///
/// Every error names the key it is about (`retry.max_attempts`), or the flag and
/// environment variable (`--listen/GQLGATE_LISTEN`), the bad value and what is allowed:
///
///     retry.max_attempts: "zero" is not valid: expected an integer >= 1
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The dotted key path (`upstream.timeout`, `retry.on_status[1]`), a flag name, or empty when the
    /// problem is not about one key (an unreadable file, broken YAML).
    public var keyPath: String
    /// What is wrong and what would be allowed.
    public var message: String

    /// Creates an error about one key.
    /// - Parameters:
    ///   - keyPath: The key, flag or other place the problem is about; empty when there is none.
    ///   - message: What is wrong and what would be allowed.
    public init(keyPath: String, message: String) {
        self.keyPath = keyPath
        self.message = message
    }

    /// `"<keyPath>: <message>"`, or only the message when there is no key path.
    public var description: String {
        keyPath.isEmpty ? message : "\(keyPath): \(message)"
    }
}

extension ConfigError {
    /// An error saying that `value` is not one of the values described by `expected`.
    /// - Parameters:
    ///   - value: The rejected text, quoted in the message.
    ///   - expected: What is allowed, e.g. `an integer >= 1`.
    ///   - keyPath: The key; empty for parsers that do not know it yet (see ``at(_:)``).
    static func invalid(_ value: String, expected: String, keyPath: String = "") -> ConfigError {
        ConfigError(keyPath: keyPath, message: "\(quoted(value)) is not valid: expected \(expected)")
    }

    /// This error, placed at `keyPath` (used by value parsers, which do not know the key).
    func at(_ keyPath: String) -> ConfigError {
        ConfigError(keyPath: keyPath, message: message)
    }

    /// `text` in double quotes, with quotes, backslashes and control characters (DEL included)
    /// escaped: readable in messages and valid in YAML.
    static func quoted(_ text: String) -> String {
        JSONString.quoted(text, escapingDelete: true)
    }
}
