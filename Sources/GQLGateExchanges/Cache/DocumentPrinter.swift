import GQLGatePipeline
import GraphQL

/// Prints an executable document (operations and fragments) on one line, in
/// time linear in its size: GraphQLSwift's `print(ast:)` lays out values
/// and arguments to 80 columns by printing them twice a level, exponential
/// in their nesting. Strings are printed as plain string literals (block
/// strings too, with the same value). Recursion is one call a level, which
/// `DocumentNesting` bounds.
struct DocumentPrinter {
    private var text = ""
    /// Set on a node this printer does not know.
    private var unknownNode = false

    /// `document` printed; nil when it holds a definition other than an
    /// operation or a fragment (which no GraphQL server executes).
    static func print(_ document: Document) -> String? {
        var printer = DocumentPrinter()
        for (index, definition) in document.definitions.enumerated() {
            if index > 0 { printer.text += " " }
            switch definition {
            case let operation as OperationDefinition: printer.write(operation)
            case let fragment as FragmentDefinition: printer.write(fragment)
            default: return nil
            }
        }
        return printer.unknownNode ? nil : printer.text
    }

    private mutating func write(_ operation: OperationDefinition) {
        let short = operation.operation == .query && operation.name == nil
            && operation.variableDefinitions.isEmpty && operation.directives.isEmpty
        if !short {
            text += operation.operation.rawValue
            if let name = operation.name { text += " " + name.value }
            if !operation.variableDefinitions.isEmpty {
                text += "("
                for (index, definition) in operation.variableDefinitions.enumerated() {
                    if index > 0 { text += ", " }
                    text += "$" + definition.variable.name.value + ": "
                    write(definition.type)
                    if let value = definition.defaultValue {
                        text += " = "
                        write(value)
                    }
                    write(definition.directives)
                }
                text += ")"
            }
            write(operation.directives)
            text += " "
        }
        write(operation.selectionSet)
    }

    private mutating func write(_ fragment: FragmentDefinition) {
        text += "fragment " + fragment.name.value + " on " + fragment.typeCondition.name.value
        write(fragment.directives)
        text += " "
        write(fragment.selectionSet)
    }

    private mutating func write(_ set: SelectionSet) {
        text += "{"
        for selection in set.selections {
            text += " "
            switch selection {
            case let field as Field:
                if let alias = field.alias { text += alias.value + ": " }
                text += field.name.value
                write(field.arguments)
                write(field.directives)
                if let sub = field.selectionSet {
                    text += " "
                    write(sub)
                }
            case let spread as FragmentSpread:
                text += "..." + spread.name.value
                write(spread.directives)
            case let inline as InlineFragment:
                text += "..."
                if let type = inline.typeCondition { text += " on " + type.name.value }
                write(inline.directives)
                text += " "
                write(inline.selectionSet)
            default:
                unknownNode = true
            }
        }
        text += " }"
    }

    private mutating func write(_ arguments: [Argument]) {
        guard !arguments.isEmpty else { return }
        text += "("
        for (index, argument) in arguments.enumerated() {
            if index > 0 { text += ", " }
            text += argument.name.value + ": "
            write(argument.value)
        }
        text += ")"
    }

    private mutating func write(_ directives: [Directive]) {
        for directive in directives {
            text += " @" + directive.name.value
            write(directive.arguments)
        }
    }

    private mutating func write(_ type: any GraphQL.`Type`) {
        switch type {
        case let named as NamedType:
            text += named.name.value
        case let list as ListType:
            text += "["
            write(list.type)
            text += "]"
        case let nonNull as NonNullType:
            write(nonNull.type)
            text += "!"
        default:
            unknownNode = true
        }
    }

    private mutating func write(_ value: any GraphQL.Value) {
        switch value {
        case let variable as Variable: text += "$" + variable.name.value
        case let int as IntValue: text += int.value
        case let float as FloatValue: text += float.value
        case let string as StringValue: GraphQLStringLiteral.append(string.value, to: &text)
        case let bool as BooleanValue: text += bool.value ? "true" : "false"
        case is NullValue: text += "null"
        case let enumValue as EnumValue: text += enumValue.value
        case let list as ListValue:
            text += "["
            for (index, item) in list.values.enumerated() {
                if index > 0 { text += ", " }
                write(item)
            }
            text += "]"
        case let object as ObjectValue:
            text += "{ "
            for (index, field) in object.fields.enumerated() {
                if index > 0 { text += ", " }
                text += field.name.value + ": "
                write(field.value)
            }
            text += " }"
        default:
            unknownNode = true
        }
    }
}
