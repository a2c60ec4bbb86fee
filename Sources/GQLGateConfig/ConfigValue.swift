import Yams

/// A JSON-like value taken as it is from the config file (used for `auth.ws_init_payload`).
///
/// Unquoted scalars are typed the YAML 1.2 way (`null`, `true`, `42`, `1.5`); quoted scalars and
/// scalars with `${VAR}` references are strings. Objects keep their keys in file order.
public enum ConfigValue: Sendable, Equatable {
    /// `null` or `~`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number.
    case int(Int)
    /// A finite number with a fraction or exponent.
    case double(Double)
    /// Text.
    case string(String)
    /// A list.
    case array([ConfigValue])
    /// A mapping, keys in file order.
    case object([Member])

    /// One key and value of an ``object(_:)``.
    public struct Member: Sendable, Equatable {
        /// The key.
        public var key: String
        /// The value.
        public var value: ConfigValue

        /// Creates a member.
        /// - Parameters:
        ///   - key: The key.
        ///   - value: The value.
        public init(key: String, value: ConfigValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value of an unquoted YAML scalar without `${VAR}` references, typed by its text.
    init(plainScalar text: String) {
        switch text {
        case "", "~", "null", "Null", "NULL": self = .null
        case "true", "True", "TRUE": self = .bool(true)
        case "false", "False", "FALSE": self = .bool(false)
        default:
            let isNumeric = text.contains(where: \.isASCIIDigit) && text.allSatisfy { $0.isASCIIDigit || "+-.eE".contains($0) }
            if isNumeric, let int = Int(text) {
                self = .int(int)
            } else if isNumeric, let double = Double(text), double.isFinite {
                self = .double(double)
            } else {
                self = .string(text)
            }
        }
    }
}

extension YAMLValue {
    /// The most scalars, lists and mappings one value may hold once its YAML
    /// aliases are expanded: a few lines of aliases of aliases can otherwise
    /// stand for billions of values (an "alias bomb").
    static let mostConfigValueNodes = 100_000

    /// Any value, typed the way ``ConfigValue`` describes.
    func configValue() throws(ConfigError) -> ConfigValue {
        var budget = Self.mostConfigValueNodes
        return try configValue(budget: &budget)
    }

    private func configValue(budget: inout Int) throws(ConfigError) -> ConfigValue {
        budget -= 1
        guard budget >= 0 else {
            throw invalid("a value of at most \(Self.mostConfigValueNodes) items once its aliases are expanded")
        }
        switch node {
        case .scalar(let scalar):
            let expanded = try text(expected: "a value")
            return scalar.style == .plain && expanded == scalar.string ? ConfigValue(plainScalar: expanded) : .string(expanded)
        case .sequence:
            var values: [ConfigValue] = []
            for element in try list(of: "values") { values.append(try element.configValue(budget: &budget)) }
            return .array(values)
        case .mapping:
            var members: [ConfigValue.Member] = []
            for (key, value) in try entries(expected: "a mapping") {
                members.append(ConfigValue.Member(key: key, value: try value.configValue(budget: &budget)))
            }
            return .object(members)
        case .alias:
            throw invalid("a value")
        }
    }
}
