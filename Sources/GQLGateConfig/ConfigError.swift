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
    /// An error saying that `value` is not one of the values described by `expected`. The message
    /// shows `value` as `check-config` prints the value of `keyPath`: redacted when it is secret.
    /// - Parameters:
    ///   - value: The rejected text, quoted in the message.
    ///   - expected: What is allowed, e.g. `an integer >= 1`.
    ///   - keyPath: The key; empty for parsers that do not know it yet (see ``at(_:rejecting:)``).
    package static func invalid(_ value: String, expected: String, keyPath: String = "") -> ConfigError {
        ConfigError(keyPath: keyPath, message: "\(shown(value, at: keyPath)) is not valid: expected \(expected)")
    }

    /// This error, placed at `keyPath` (used by value parsers, which do not know the key).
    func at(_ keyPath: String) -> ConfigError {
        ConfigError(keyPath: keyPath, message: message)
    }

    /// This error from a parser that quoted `value` without knowing the key, placed at `keyPath`,
    /// with `value` redacted when the key is secret.
    func at(_ keyPath: String, rejecting value: String) -> ConfigError {
        guard let secret = ConfigSecret.at(keyPath) else { return at(keyPath) }
        return ConfigError(keyPath: keyPath, message: message.replacing(Self.quoted(value), with: Self.quoted(secret.redacting(value))))
    }

    /// `value` quoted as an error about `keyPath` shows it: redacted when the key is secret.
    static func shown(_ value: String, at keyPath: String) -> String {
        quoted(ConfigSecret.at(keyPath)?.redacting(value) ?? value)
    }

    /// `text` in double quotes, with quotes, backslashes and control characters (DEL included)
    /// escaped, and the characters YAML does not read back as they are (see ``needsYAMLEscape(_:)``):
    /// readable in messages and valid in YAML.
    static func quoted(_ text: String) -> String {
        let json = JSONString.quoted(text, escapingDelete: true)
        guard json.unicodeScalars.contains(where: needsYAMLEscape) else { return json }
        var escaped = ""
        for scalar in json.unicodeScalars {
            guard needsYAMLEscape(scalar) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        return escaped
    }

    /// The characters that JSON leaves as they are but a YAML double-quoted scalar does not hold:
    /// the C1 controls, U+FFFE and U+FFFF, which a YAML reader refuses, and the line breaks NEL,
    /// U+2028 and U+2029, which it folds (NEL into a space, the spaces around each dropped); and the
    /// byte order mark, which is invisible.
    private static func needsYAMLEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x80...0x9F, 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF: true
        default: false
        }
    }
}
