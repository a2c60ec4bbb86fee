import GraphQL

/// Directives a schema may rely on without defining them, defined before
/// its SDL is built:
/// - the IBM cost directives (`@cost`, `@listSize`, from the GraphQL Cost
///   Directives specification), when the SDL uses them: a schema written for
///   demand control loads as any other;
/// - the incremental delivery directives (`@defer`, `@stream`), which
///   documents use: printed schemas often leave them out, as the directives
///   every server knows, and GraphQLSwift does not know them.
enum ImpliedDirectives {
    static let cost = """
        directive @cost(weight: String!) on ARGUMENT_DEFINITION | ENUM | FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR
        """
    static let listSize = """
        directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], \
        requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
        """

    static let deferDirective = "directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT"
    static let stream = "directive @stream(if: Boolean! = true, label: String, initialCount: Int = 0) on FIELD"

    /// `sdl` with the definitions of the cost directives it uses and of the
    /// incremental delivery directives, each unless it defines it (a
    /// definition the parsed SDL holds: not a comment or a directive whose
    /// name only starts the same). An SDL that does not parse is returned as
    /// it is (building it reports the syntax error).
    static func adding(to sdl: String) -> String {
        guard let document = try? parse(source: sdl) else { return sdl }
        let defined = Set(document.definitions.compactMap { ($0 as? DirectiveDefinition)?.name.value })
        var text = sdl
        for (name, definition) in [("cost", cost), ("listSize", listSize)] where text.contains("@\(name)") && !defined.contains(name) {
            text += "\n" + definition + "\n"
        }
        for (name, definition) in [("defer", deferDirective), ("stream", stream)] where !defined.contains(name) {
            text += "\n" + definition + "\n"
        }
        return text
    }
}
