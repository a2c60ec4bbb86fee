import GraphQL
import enum GQLGatePipeline.DocumentNesting

/// How deeply a request to the demo API may nest, checked before GraphQLSwift
/// sees it: its parser, validation and value coercion recurse once per level
/// of `{}`, `[]` and `()` in the document (a variable type 20,000 lists deep
/// overflowed the stack), once per level of the variables, and validation and
/// execution once per fragment in a chain of fragments spreading each other.
enum DemoNesting {
    /// Levels allowed in the document and in the variables, and fragments in
    /// a document; far above what the demo schema can use (introspection
    /// queries nest about 20 deep).
    static let limit = 64

    /// Why `request` nests too deeply, or nil when it does not.
    static func problem(in request: GraphQLRequest) -> GraphQLError? {
        if nests(request.query, deeperThan: limit) {
            return GraphQLError(message: "The document nests deeper than \(limit) levels of braces, brackets and parentheses.")
        }
        if request.variables.values.contains(where: { nests($0, deeperThan: limit - 1) }) {
            return GraphQLError(message: "The variables nest deeper than \(limit) levels of objects and lists.")
        }
        return nil
    }

    /// Why the parsed `document` could nest too deeply through fragments, or nil.
    static func problem(in document: Document) -> GraphQLError? {
        let fragments = document.definitions.lazy.filter { $0 is FragmentDefinition }.count
        return fragments > limit ? GraphQLError(message: "The document defines \(fragments) fragments; at most \(limit) are allowed.") : nil
    }

    /// Whether a GraphQL document nests `{`, `[` and `(` more than `levels`
    /// deep, outside strings, block strings and comments: the gateway's own
    /// one-pass scan (`DocumentNesting`), with the demo's bound.
    static func nests(_ document: String, deeperThan levels: Int) -> Bool {
        DocumentNesting.firstBracket(in: document, pastDepth: levels) != nil
    }

    /// Whether `value` nests objects and lists more than `levels` deep (the
    /// variables object itself is a level, its values' objects the next); the
    /// recursion goes no deeper than `levels` + 1.
    static func nests(_ value: Map, deeperThan levels: Int) -> Bool {
        switch value {
        case .array(let values): levels == 0 || values.contains { nests($0, deeperThan: levels - 1) }
        case .dictionary(let members): levels == 0 || members.values.contains { nests($0, deeperThan: levels - 1) }
        default: false
        }
    }
}
