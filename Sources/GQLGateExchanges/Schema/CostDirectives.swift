/// The IBM cost directives (`@cost`, `@listSize`, from the GraphQL Cost
/// Directives specification) a schema file may carry without defining them:
/// their definitions are added before the SDL is built, so a schema written
/// for demand control loads as any other.
enum CostDirectives {
    static let cost = """
        directive @cost(weight: String!) on ARGUMENT_DEFINITION | ENUM | FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR
        """
    static let listSize = """
        directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], \
        requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
        """

    /// `sdl` with the definitions of the cost directives it uses and does not define.
    static func adding(to sdl: String) -> String {
        var text = sdl
        for (name, definition) in [("cost", cost), ("listSize", listSize)]
        where text.contains("@\(name)") && !text.contains("directive @\(name)") {
            text += "\n" + definition + "\n"
        }
        return text
    }
}
