// Small text helpers shared by the value parsers.

extension Character {
    /// True for `0` through `9` only (not other Unicode digits).
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }

    /// True for `a` through `z` and `A` through `Z` only.
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

extension StringProtocol {
    /// True for an HTTP header name (an RFC 9110 token: letters, digits and ``!#$%&'*+-.^_`|~``).
    var isHeaderName: Bool {
        !isEmpty && allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || "!#$%&'*+-.^_`|~".contains($0) }
    }

    /// True for an identifier such as a GraphQL type name or an environment variable name:
    /// `[_A-Za-z][_0-9A-Za-z]*`.
    var isIdentifier: Bool {
        guard let first, first.isASCIILetter || first == "_" else { return false }
        return allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
    }
}

extension Double {
    /// The number as the config file writes it, without a trailing `.0` when it is whole (`0`, `0.2`, `1`).
    var configText: String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
