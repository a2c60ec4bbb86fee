/// One entry of an `Accept` header (RFC 9110 §12.5.1): a media range
/// (`application/json`, `application/*`, `*/*`), its parameters and its
/// weight. Read leniently: names are compared without case, quotes around
/// parameter values dropped, a malformed weight counts as 0.
package struct MediaRange: Sendable, Equatable {
    /// How specifically a range names a media type. Where several ranges
    /// cover one type, the most specific one gives its weight.
    package enum Specificity: Int, Comparable, Sendable {
        /// `*/*`
        case anyType
        /// `application/*`
        case anySubtype
        /// `application/json`
        case exact
        /// `application/json;charset=utf-8`
        case exactWithParameters

        package static func < (lhs: Specificity, rhs: Specificity) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A media type parameter: name in lower case, value without its quotes.
    package struct Parameter: Sendable, Equatable {
        package let name: String
        package let value: String
    }

    /// The type in lower case (`application`, or `*`).
    package let type: String
    /// The subtype in lower case (`json`, or `*`).
    package let subtype: String
    /// The media type parameters, those before the weight (what follows `q` is no parameter of the type).
    package let parameters: [Parameter]
    /// The weight (`q`) in thousandths: 1000 without one, 0 when it is not a qvalue.
    package let quality: Int

    /// The value of the parameter `name` (lower case), if the range has one.
    package func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// How specifically the range covers `type/subtype` (lower case); nil when it does not cover it.
    package func specificity(covering type: String, _ subtype: String) -> Specificity? {
        if self.type == "*" { return self.subtype == "*" ? .anyType : nil }
        guard self.type == type else { return nil }
        if self.subtype == "*" { return .anySubtype }
        guard self.subtype == subtype else { return nil }
        return parameters.isEmpty ? .exact : .exactWithParameters
    }

    /// The entries of an `Accept` value, empty ones skipped.
    package static func list(_ header: String) -> [MediaRange] {
        header.split(separator: ",").compactMap(MediaRange.init(entry:))
    }

    private init?(entry: Substring) {
        var pieces = entry.split(separator: ";", omittingEmptySubsequences: false)[...]
        let name = pieces.popFirst()?.trimmingASCIISpaces() ?? ""
        guard !name.isEmpty else { return nil }
        let slash = name.firstIndex(of: "/")
        type = String(name[..<(slash ?? name.endIndex)]).lowercased()
        subtype = slash.map { String(name[name.index(after: $0)...]).lowercased() } ?? ""
        var parameters: [Parameter] = []
        var quality = 1000
        for piece in pieces {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = pair[0].trimmingASCIISpaces().lowercased()
            let value = pair[1].trimmingASCIISpaces()
            if name == "q" {
                quality = AcceptEncoding.quality(value) ?? 0
                break
            }
            parameters.append(Parameter(name: name, value: String(value.filter { $0 != "\"" })))
        }
        self.parameters = parameters
        self.quality = quality
    }
}
