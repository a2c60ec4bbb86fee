/// The values one label takes, bounded: the first `most` distinct values
/// seen keep their own series, later ones share `other`, so that values a
/// client chooses (its name, its operations' names) cannot grow the series
/// without bound. Values longer than `longest` UTF-8 bytes are cut. Not
/// Sendable: its owner keeps it under a lock.
struct CappedLabelValues {
    /// Distinct values kept as labels; the rest are `other`.
    let most: Int
    /// The longest value kept whole (UTF-8 bytes).
    let longest: Int
    /// A value (as seen) → its number, in the order first seen.
    private var numbers: [String: Int] = [:]
    /// The label of each number.
    private(set) var labels: [String] = []

    init(most: Int = 100, longest: Int = 128) {
        self.most = most
        self.longest = longest
    }

    /// The number of `value`'s series (its own, or `other`'s).
    mutating func number(of value: String) -> Int {
        if let known = numbers[value] { return known }
        let kept = value.utf8.count > longest ? Self.cut(value, to: longest) : value
        let label = labels.count < most ? kept : "other"
        let number: Int
        if let known = numbers[label] {
            number = known
        } else {
            number = labels.count
            labels.append(label)
            numbers[label] = number
        }
        // Values past the cap are remembered only up to a bound, so a flood of new ones costs no memory.
        if value != label, numbers.count < most * 4 { numbers[value] = number }
        return number
    }

    /// The longest start of `value` of at most `bytes` UTF-8 bytes that ends on a whole character.
    private static func cut(_ value: String, to bytes: Int) -> String {
        var end = value.startIndex
        var used = 0
        for index in value.unicodeScalars.indices {
            let size = value.unicodeScalars[index].utf8.count
            guard used + size <= bytes else { break }
            used += size
            end = value.unicodeScalars.index(after: index)
        }
        return String(value.unicodeScalars[..<end])
    }

    /// `value` as the text format writes a label value: backslash, quote and newline escaped.
    static func escaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") }) else {
            return value
        }
        var text = ""
        for character in value {
            switch character {
            case "\\": text += "\\\\"
            case "\"": text += "\\\""
            case "\n": text += "\\n"
            default: text.append(character)
            }
        }
        return text
    }
}
