import GQLGateCore
/// Reads and writes the sizes of the config file.
///
/// A size is a whole number of bytes, either bare (`65536`) or with a unit: `B`, `KB` (1000),
/// `KiB` (1024), `MB`, `MiB`, `GB`, `GiB`. Units are case-insensitive; a space before the unit is
/// allowed (`64 MiB`).
package enum ByteSize {
    /// The units; binary ones come first so that they win ties when formatting.
    private static let units: [(name: String, bytes: Int)] = [
        ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
        ("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1_000), ("B", 1),
    ]

    private static let expected = "a size such as 64MiB, 512KB, 1GiB or a number of bytes"

    /// Parses a size such as `64MiB`, `512KB`, `1KiB`, `100B` or `65536`.
    /// - Parameter text: The text from the config file.
    /// - Returns: The size in bytes.
    /// - Throws: A ``ConfigError`` without key path that quotes `text` and says what is allowed.
    package static func parse(_ text: String) throws(ConfigError) -> Int {
        let trimmed = text.trimmingASCIISpaces()
        let digits = trimmed.prefix(while: \.isASCIIDigit)
        let unitName = trimmed.dropFirst(digits.count).trimmingASCIISpaces().lowercased()
        guard !digits.isEmpty, let count = Int(digits) else { throw .invalid(text, expected: expected) }
        if unitName.isEmpty { return count }
        guard let unit = units.first(where: { $0.name.lowercased() == unitName }) else {
            throw .invalid(text, expected: expected)
        }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: unit.bytes)
        guard !overflow else { throw .invalid(text, expected: expected) }
        return bytes
    }

    /// Formats a size the way the config file writes it: with the unit that divides it exactly and
    /// gives the smallest number, binary units winning ties (`64MiB`, `2GB`, `1000001B`).
    /// - Parameter bytes: The size in bytes.
    package static func format(_ bytes: Int) -> String {
        guard bytes != 0 else { return "0B" }
        var best = (count: bytes, name: "B")
        for unit in units where bytes % unit.bytes == 0 && bytes / unit.bytes < best.count {
            best = (bytes / unit.bytes, unit.name)
        }
        return "\(best.count)\(best.name)"
    }
}
