import GQLGateCore
/// A number of threads: `auto` or a fixed count of at least 1.
public enum ThreadCount: Sendable, Equatable, CustomStringConvertible {
    /// Let gqlgate choose; what that means depends on the key (see ``ServerConfig``).
    case auto
    /// Exactly this many threads (at least 1).
    case fixed(Int)

    /// The count to use, `auto` standing for `auto`.
    /// - Parameter auto: The count that `auto` means for this key.
    package func resolved(auto: Int) -> Int {
        switch self {
        case .auto: auto
        case .fixed(let count): count
        }
    }

    /// `auto` or the number, as the config file writes it.
    public var description: String {
        switch self {
        case .auto: "auto"
        case .fixed(let count): String(count)
        }
    }
}

extension YAMLValue {
    /// `auto` or an integer >= 1.
    func threadCount() throws(ConfigError) -> ThreadCount {
        let expected = "auto or an integer >= 1"
        let text = try text(expected: expected)
        if text.trimmingASCIISpaces() == "auto" { return .auto }
        guard let count = Int(text.trimmingASCIISpaces()), count >= 1 else { throw invalid(expected, value: text) }
        return .fixed(count)
    }
}
