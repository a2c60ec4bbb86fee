import GQLGateCore
/// Reads and writes the durations of the config file.
///
/// A duration is a number with a unit: `250ms`, `10s`, `1.5s`, `1m`, `1h`. Units are `ms`, `s`, `m`
/// and `h`; fractions are allowed as long as the result is a whole number of milliseconds. `0` needs
/// no unit; any other bare number is rejected because it is ambiguous.
package enum ConfigDuration {
    /// The units, longest-first for formatting, in milliseconds.
    private static let units: [(name: String, milliseconds: Int64)] = [
        ("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1),
    ]

    private static let expected = "a duration such as 250ms, 10s, 1.5s, 1m or 1h"

    /// Parses a duration such as `250ms`, `10s`, `1.5s`, `1m`, `1h` or `0`.
    /// - Parameter text: The text from the config file.
    /// - Returns: The duration, with millisecond precision.
    /// - Throws: A ``ConfigError`` without key path that quotes `text` and says what is allowed.
    package static func parse(_ text: String) throws(ConfigError) -> Duration {
        let trimmed = text.trimmingASCIISpaces()
        if trimmed == "0" { return .zero }
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCIIDigit) {
            throw .invalid(text, expected: "a duration; use a unit: \(trimmed)s, \(trimmed)ms")
        }
        let number = trimmed.prefix { $0.isASCIIDigit || $0 == "." }
        let unitName = trimmed.dropFirst(number.count)
        guard let unit = units.first(where: { $0.name == unitName }),
              let milliseconds = milliseconds(number: number, unit: unit.milliseconds)
        else {
            throw .invalid(text, expected: expected)
        }
        return .milliseconds(milliseconds)
    }

    /// Formats a duration the way the config file writes it: the largest unit that divides it
    /// exactly (`2s`, `1500ms`, `1h`), `0s` for zero. Sub-millisecond parts are dropped.
    /// - Parameter duration: The duration to format.
    package static func format(_ duration: Duration) -> String {
        let milliseconds = milliseconds(of: duration)
        if milliseconds == 0 { return "0s" }
        for unit in units where milliseconds % unit.milliseconds == 0 {
            return "\(milliseconds / unit.milliseconds)\(unit.name)"
        }
        return "\(milliseconds)ms"
    }

    /// The whole milliseconds in `duration`.
    static func milliseconds(of duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// `number` (digits with at most one `.`) times `unit`, or nil when it is malformed, overflows
    /// or is not a whole number of milliseconds.
    private static func milliseconds(number: Substring, unit: Int64) -> Int64? {
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 12,
              let wholeValue = Int64(whole)
        else { return nil }
        var fractionMilliseconds: Int64 = 0
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 9, let fractionValue = Int64(fraction) else { return nil }
            var scale: Int64 = 1
            for _ in 0..<fraction.count { scale *= 10 }
            let scaled = fractionValue * unit
            guard scaled % scale == 0 else { return nil }
            fractionMilliseconds = scaled / scale
        }
        let (product, overflow) = wholeValue.multipliedReportingOverflow(by: unit)
        guard !overflow else { return nil }
        let (sum, sumOverflow) = product.addingReportingOverflow(fractionMilliseconds)
        return sumOverflow ? nil : sum
    }
}
