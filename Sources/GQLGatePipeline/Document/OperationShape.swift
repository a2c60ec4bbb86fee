import GraphQL

/// How big an operation is once its fragments are expanded: the nesting depth
/// of field selections (root fields are depth 1) and the number of aliased
/// fields. Computed once per distinct document, for the query limits.
public struct OperationShape: Sendable, Equatable {
    /// Deepest field nesting.
    public var depth: Int
    /// Aliased fields, counted every time a fragment holding them is spread
    /// (saturates at `Int.max` instead of overflowing).
    public var aliases: Int

    public init(depth: Int, aliases: Int) {
        self.depth = depth
        self.aliases = aliases
    }

    static let empty = OperationShape(depth: 0, aliases: 0)
}

/// Measures operations of one document, each fragment once (memoised), and
/// rejects fragment cycles, which would make expansion infinite.
struct OperationShapeMeasurer {
    private let fragments: [String: SelectionSet]
    private var measured: [String: OperationShape] = [:]
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
        var result = OperationShape.empty
        for selection in set.selections {
            let part: OperationShape
            switch selection {
            case let field as Field:
                let child = try field.selectionSet.map { set throws(GatewayError) in try shape(of: set) } ?? .empty
                part = OperationShape(depth: child.depth + 1, aliases: Self.sum(child.aliases, field.alias == nil ? 0 : 1))
            case let spread as FragmentSpread:
                part = try shape(ofFragment: spread.name.value)
            case let inline as InlineFragment:
                part = try shape(of: inline.selectionSet)
            default:
                part = .empty
            }
            result.depth = max(result.depth, part.depth)
            result.aliases = Self.sum(result.aliases, part.aliases)
        }
        return result
    }

    private mutating func shape(ofFragment name: String) throws(GatewayError) -> OperationShape {
        if let known = measured[name] { return known }
        guard let set = fragments[name] else { return .empty }
        if let start = inProgress.firstIndex(of: name) {
            let cycle = (inProgress[start...] + [name]).joined(separator: " → ")
            throw GatewayError.queryTooComplex("Fragments spread each other in a cycle (\(cycle)).")
        }
        inProgress.append(name)
        let result = try shape(of: set)
        inProgress.removeLast()
        measured[name] = result
        return result
    }

    private static func sum(_ a: Int, _ b: Int) -> Int {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : total
    }
}
