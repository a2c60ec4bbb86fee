/// A client's `Accept` (RFC 9110 §12.5.1), read once into its media ranges:
/// the one reader of it, for every choice made by it — the answer's media
/// type, a stream (Server-Sent Events, multipart), incremental delivery.
package struct AcceptHeader: Sendable {
    /// The entries in the client's order.
    package let ranges: [MediaRange]

    /// The weight the header gives one media type, and how specifically it names it.
    package struct Rating: Sendable, Equatable {
        /// In thousandths; 0 refuses the type.
        package let quality: Int
        package let specificity: MediaRange.Specificity

        /// Whether the type may be sent (a weight above 0).
        package var isAcceptable: Bool { quality > 0 }
    }

    /// The header with the value `value`; the values of repeated `Accept` fields may be joined with commas.
    package init(_ value: String) {
        ranges = MediaRange.list(value)
    }

    /// The rating of `type/subtype` (lower case): the weight of the most
    /// specific range that covers it and that `applies` to the
    /// representation meant (a charset, say), the highest weight among
    /// equally specific ones; nil when no range covers it.
    package func rating(of type: String, _ subtype: String, where applies: (MediaRange) -> Bool = { _ in true }) -> Rating? {
        var best: Rating?
        for range in ranges {
            guard let specificity = range.specificity(covering: type, subtype), applies(range) else { continue }
            if let found = best, found.specificity > specificity || (found.specificity == specificity && found.quality >= range.quality) {
                continue
            }
            best = Rating(quality: range.quality, specificity: specificity)
        }
        return best
    }

    /// Whether an entry names `type/subtype` (lower case) itself, not
    /// through a wildcard, with a weight above 0 and `applies` holding for it.
    package func names(_ type: String, _ subtype: String, where applies: (MediaRange) -> Bool = { _ in true }) -> Bool {
        ranges.contains { range in
            guard range.quality > 0, let specificity = range.specificity(covering: type, subtype) else { return false }
            return specificity >= .exact && applies(range)
        }
    }
}
