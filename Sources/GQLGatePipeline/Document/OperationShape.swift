import GraphQL

/// How big an operation is once its fragments are expanded: the nesting depth
/// of field selections (root fields are depth 1) and the number of aliased
/// fields, and what it selects that changes how it is answered
/// (introspection, incremental delivery). Computed once per distinct document.
package struct OperationShape: Sendable, Equatable {
    /// Deepest field nesting.
    package var depth: Int
    /// Aliased fields, counted every time a fragment holding them is spread
    /// (saturates at `Int.max` instead of overflowing).
    package var aliases: Int
    /// Whether it selects `__schema` or `__type` anywhere (introspection;
    /// `__typename` does not count).
    package var introspects: Bool
    /// Whether `@defer` (on a fragment) or `@stream` (on a field) appears
    /// anywhere, whatever its `if` argument says: its answer may come in
    /// parts (incremental delivery, `multipart/mixed`).
    package var defersResults: Bool

    package init(depth: Int, aliases: Int, introspects: Bool = false, defersResults: Bool = false) {
        self.depth = depth
        self.aliases = aliases
        self.introspects = introspects
        self.defersResults = defersResults
    }

    static let empty = OperationShape(depth: 0, aliases: 0)
}

/// Measures operations of one document, each fragment once (memoised), and
/// rejects fragment cycles, which would make expansion infinite, and
/// operations that nest (fields, inline fragments and spreads, fragments
/// expanded) more than `DocumentNesting.limit` levels: a chain of fragments
/// nests without nesting the text, and every pass over an operation recurses
/// once a level.
struct OperationShapeMeasurer {
    /// A shape and the levels of selections under it, fragments expanded.
    private struct Measure {
        var shape: OperationShape
        var levels: Int

        static let empty = Measure(shape: .empty, levels: 0)
    }

    private let fragments: [String: SelectionSet]
    private var measured: [String: Measure] = [:]
    private var inProgress: [String] = []

    init(document: Document) {
        var fragments: [String: SelectionSet] = [:]
        for case let fragment as FragmentDefinition in document.definitions {
            fragments[fragment.name.value] = fragment.selectionSet
        }
        self.fragments = fragments
    }

    /// The shape of a selection set with its fragments expanded.
    mutating func shape(of set: SelectionSet) throws(GatewayError) -> OperationShape {
        try measure(set, level: 0).shape
    }

    /// `set`'s measure, `level` levels below its operation's root.
    private mutating func measure(_ set: SelectionSet, level: Int) throws(GatewayError) -> Measure {
        var result = Measure.empty
        for selection in set.selections {
            let part: Measure
            switch selection {
            case let field as Field:
                let child = try field.selectionSet.map { set throws(GatewayError) in try measure(set, level: level + 1) } ?? .empty
                let introspects = child.shape.introspects || field.name.value == "__schema" || field.name.value == "__type"
                part = Measure(shape: OperationShape(depth: child.shape.depth + 1, aliases: Self.sum(child.shape.aliases, field.alias == nil ? 0 : 1),
                                                     introspects: introspects,
                                                     defersResults: child.shape.defersResults || Self.has("stream", field.directives)),
                               levels: child.levels + 1)
            case let spread as FragmentSpread:
                var fragment = try measure(fragment: spread.name.value, level: level + 1)
                fragment.shape.defersResults = fragment.shape.defersResults || Self.has("defer", spread.directives)
                part = Measure(shape: fragment.shape, levels: fragment.levels + 1)
            case let inline as InlineFragment:
                var inner = try measure(inline.selectionSet, level: level + 1)
                inner.shape.defersResults = inner.shape.defersResults || Self.has("defer", inline.directives)
                part = Measure(shape: inner.shape, levels: inner.levels + 1)
            default:
                part = .empty
            }
            guard level + part.levels <= DocumentNesting.limit else { throw Self.tooDeep }
            result.shape.depth = max(result.shape.depth, part.shape.depth)
            result.shape.aliases = Self.sum(result.shape.aliases, part.shape.aliases)
            result.shape.introspects = result.shape.introspects || part.shape.introspects
            result.shape.defersResults = result.shape.defersResults || part.shape.defersResults
            result.levels = max(result.levels, part.levels)
        }
        return result
    }

    private mutating func measure(fragment name: String, level: Int) throws(GatewayError) -> Measure {
        if let known = measured[name] { return known }
        guard let set = fragments[name] else { return .empty }
        if let start = inProgress.firstIndex(of: name) {
            let cycle = (inProgress[start...] + [name]).joined(separator: " → ")
            throw GatewayError.queryTooComplex("Fragments spread each other in a cycle (\(cycle)).")
        }
        guard level <= DocumentNesting.limit else { throw Self.tooDeep }
        inProgress.append(name)
        let result = try measure(set, level: level)
        inProgress.removeLast()
        measured[name] = result
        return result
    }

    private static let tooDeep = GatewayError.queryTooComplex(
        "The operation nests more than \(DocumentNesting.limit) levels deep once its fragments are expanded.")

    /// Whether `directives` holds one named `name`.
    private static func has(_ name: String, _ directives: [Directive]) -> Bool {
        directives.contains { $0.name.value == name }
    }

    private static func sum(_ a: Int, _ b: Int) -> Int {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : total
    }
}
