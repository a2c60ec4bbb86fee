import GQLGateCore
import Yams

/// One node of the config file, with the key path that leads to it.
///
/// This is the strict walker over the tree that `Yams.compose` builds: every accessor checks the
/// node's shape and value and throws a ``ConfigError`` at ``path`` naming the bad value and what is
/// allowed. Scalars go through ``EnvExpansion`` before they are typed.
struct YAMLValue {
    /// The node itself.
    let node: Node
    /// The dotted key path of the node, e.g. `retry.on_status[1]`; empty for the document root.
    let path: String
    /// The environment that `${VAR}` references are expanded from.
    let environment: [String: String]

    /// True for a plain `~`, `null` or empty value, which leaves a key at its default.
    var isNull: Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain else { return false }
        return ConfigValue(plainScalar: scalar.string) == .null
    }

    /// A child of this node at `key` (a mapping key) or `[index]` (a list element).
    func child(_ node: Node, key: String) -> YAMLValue {
        YAMLValue(node: node, path: path.isEmpty ? key : "\(path).\(key)", environment: environment)
    }

    /// An error at this node saying its value is not `expected`.
    /// - Parameters:
    ///   - expected: What is allowed.
    ///   - value: The scalar's text after `${VAR}` expansion; the message quotes it, followed by the
    ///     text in the file when that differs (both redacted at a secret key, see ``ConfigSecret``).
    func invalid(_ expected: String, value: String? = nil) -> ConfigError {
        let described: String
        switch node {
        case .scalar(let scalar):
            let written = ConfigError.shown(scalar.string, at: path)
            let read = value.map { ConfigError.shown($0, at: path) } ?? written
            described = read == written ? written : "\(read) (from \(written))"
        case .mapping: described = "a mapping"
        case .sequence: described = "a list"
        case .alias: described = "an alias"
        }
        return ConfigError(keyPath: path, message: "\(described) is not valid: expected \(expected)")
    }

    // MARK: - Scalars

    /// The scalar's text with `${VAR}` expanded; `expected` describes the value for the error when the
    /// node is a list or mapping.
    func text(expected: String) throws(ConfigError) -> String {
        guard case .scalar(let scalar) = node else { throw invalid(expected) }
        do {
            return try EnvExpansion.expand(scalar.string, environment: environment)
        } catch {
            throw error.at(path, rejecting: scalar.string)
        }
    }

    /// The value read by `parse`, a value parser whose errors have no key path yet, and the text it read.
    func parsed<T>(expected: String, _ parse: (String) throws(ConfigError) -> T) throws(ConfigError) -> (value: T, text: String) {
        let text = try text(expected: expected)
        do {
            return (try parse(text), text)
        } catch {
            throw error.at(path, rejecting: text)
        }
    }

    /// Any scalar, as text.
    func string() throws(ConfigError) -> String {
        try text(expected: "a string")
    }

    /// `true` or `false`.
    func bool() throws(ConfigError) -> Bool {
        let expected = "true or false"
        let text = try text(expected: expected)
        guard case .bool(let value) = ConfigValue(plainScalar: text) else { throw invalid(expected, value: text) }
        return value
    }

    /// A decimal integer in `range`.
    func int(_ range: ClosedRange<Int>) throws(ConfigError) -> Int {
        let expected = range.upperBound == .max
            ? "an integer >= \(range.lowerBound)"
            : "an integer from \(range.lowerBound) to \(range.upperBound)"
        let text = try text(expected: expected)
        guard let value = Int(text.trimmingASCIISpaces()), range.contains(value) else { throw invalid(expected, value: text) }
        return value
    }

    /// A number in `range`.
    func double(_ range: ClosedRange<Double>) throws(ConfigError) -> Double {
        let expected = "a number from \(range.lowerBound.configText) to \(range.upperBound.configText)"
        let text = try text(expected: expected)
        guard let value = Double(text.trimmingASCIISpaces()), range.contains(value) else { throw invalid(expected, value: text) }
        return value
    }

    /// A duration (see ``ConfigDuration``); `positive` rejects zero.
    func duration(positive: Bool = false) throws(ConfigError) -> Duration {
        let (value, text) = try parsed(expected: "a duration such as 10s", ConfigDuration.parse)
        guard !positive || value > .zero else { throw invalid("a duration > 0, such as 10s", value: text) }
        return value
    }

    /// A size in bytes (see ``ByteSize``) of at least `minimum`.
    func size(minimum: Int = 0) throws(ConfigError) -> Int {
        let (value, text) = try parsed(expected: "a size such as 64MiB", ByteSize.parse)
        guard value >= minimum else { throw invalid("a size of at least \(ByteSize.format(minimum))", value: text) }
        return value
    }

    /// One of the raw values of `type`.
    func oneOf<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type) throws(ConfigError) -> Choice
    where Choice.RawValue == String {
        let expected = "one of " + Choice.allCases.map(\.rawValue).joined(separator: ", ")
        let text = try text(expected: expected)
        guard let value = Choice(rawValue: text) else { throw invalid(expected, value: text) }
        return value
    }

    // MARK: - Collections

    /// The elements of a list, each with its `[index]` path.
    func list(of expected: String) throws(ConfigError) -> [YAMLValue] {
        guard case .sequence(let sequence) = node else { throw invalid("a list of \(expected)") }
        return sequence.enumerated().map { index, element in
            YAMLValue(node: element, path: "\(path)[\(index)]", environment: environment)
        }
    }

    /// The entries of a mapping whose keys are free (header names, type names), in file order.
    ///
    /// Keys are read as text, so two keys YAML tells apart only by their type (`1` and `"1"`, `true`
    /// and `"true"`) are the same key, set twice.
    func entries(expected: String) throws(ConfigError) -> [(key: String, value: YAMLValue)] {
        guard case .mapping(let mapping) = node else { throw invalid(expected) }
        var entries: [(key: String, value: YAMLValue)] = []
        var keys: Set<String> = []
        for (key, value) in mapping {
            guard case .scalar(let keyScalar) = key else {
                throw ConfigError(keyPath: path, message: "keys must be plain strings, not lists or mappings")
            }
            let entry = child(value, key: keyScalar.string)
            guard keys.insert(keyScalar.string).inserted else {
                throw ConfigError(keyPath: entry.path, message: "key set twice (keys are text: 1 and \"1\" are the same key)")
            }
            entries.append((keyScalar.string, entry))
        }
        return entries
    }

    /// A mapping whose keys must all be in `allowed` (absent or null reads as an empty mapping).
    func mapping(allowed: [String]) throws(ConfigError) -> YAMLMapping {
        let expected = "a mapping with keys " + allowed.joined(separator: ", ")
        let entries = isNull ? [] : try entries(expected: expected)
        for (key, value) in entries where !allowed.contains(key) {
            throw ConfigError(
                keyPath: value.path,
                message: "unknown key (allowed: \(allowed.joined(separator: ", ")))"
            )
        }
        return YAMLMapping(entries: entries.filter { !$0.value.isNull })
    }
}

/// A mapping of the config file whose keys have been checked against the allowed ones.
struct YAMLMapping {
    /// The non-null entries, in file order.
    let entries: [(key: String, value: YAMLValue)]

    /// The value at `key`, or nil when it is absent or null (which keeps the default).
    subscript(key: String) -> YAMLValue? {
        entries.first { $0.key == key }?.value
    }
}
