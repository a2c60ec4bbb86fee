/// Expands environment variables in the string values of the config file.
///
/// This is the only place that expands variables; ``YAMLValue`` calls it on every scalar value before
/// the value is typed, so `${PORT}` works for numbers and durations as well as for strings.
///
/// - `${VAR}` is the value of `VAR`; an unset `VAR` is an error.
/// - `${VAR:-default}` is the value of `VAR`, or `default` when `VAR` is unset or empty. The default
///   cannot contain `}`.
/// - `$${` is a literal `${`. Any other `$` is kept as it is.
/// - Keys are never expanded, and neither are comments.
enum EnvExpansion {
    /// `text` with every `${...}` replaced.
    /// - Parameters:
    ///   - text: A scalar value from the config file.
    ///   - environment: The process environment.
    /// - Throws: A ``ConfigError`` without key path naming the unset variable or the malformed reference.
    static func expand(_ text: String, environment: [String: String]) throws(ConfigError) -> String {
        var result = ""
        var rest = text[...]
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let tail = rest[dollar...]
            if tail.hasPrefix("$${") {
                result += "${"
                rest = tail.dropFirst(3)
            } else if tail.hasPrefix("${") {
                let body = tail.dropFirst(2)
                guard let close = body.firstIndex(of: "}") else {
                    throw .invalid(text, expected: "a closing } after ${ (write $${ for a literal ${)")
                }
                result += try value(of: body[..<close], in: text, environment: environment)
                rest = body[body.index(after: close)...]
            } else {
                result += "$"
                rest = tail.dropFirst()
            }
        }
        return result + rest
    }

    /// The value of one reference, `VAR` or `VAR:-default` (the text between `${` and `}`).
    private static func value(
        of reference: Substring,
        in text: String,
        environment: [String: String]
    ) throws(ConfigError) -> String {
        let name: Substring
        let fallback: Substring?
        if let separator = reference.firstRange(of: ":-") {
            name = reference[..<separator.lowerBound]
            fallback = reference[separator.upperBound...]
        } else {
            name = reference
            fallback = nil
        }
        guard name.isIdentifier else {
            throw .invalid(
                text,
                expected: "${NAME} or ${NAME:-default} with NAME made of letters, digits and _ (write $${ for a literal ${)"
            )
        }
        if let value = environment[String(name)], !(fallback != nil && value.isEmpty) { return value }
        if let fallback { return String(fallback) }
        throw ConfigError(
            keyPath: "",
            message: "environment variable \(name) is not set (set it, or give a default: ${\(name):-value})"
        )
    }
}
