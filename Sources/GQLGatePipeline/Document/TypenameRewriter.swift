import GraphQL

/// A document rewritten so that every object in its answers names its type:
/// `alias: __typename` is added to every selection set but the operations'
/// root ones. The alias is one the client's text never uses, so the gateway
/// can strip exactly what it added from the answer, whatever the client
/// selected itself (its own `__typename`s, aliases, fragments).
public struct TypenamedDocument: Sendable, Equatable {
    /// The rewritten document text, to send upstream instead of the client's.
    public let query: String
    /// The response key under which the added `__typename` comes back.
    public let alias: String
}

/// Adds the aliased `__typename` through GraphQLSwift's public
/// `set(value:key:)`, since its node initialisers are internal: the field
/// node is taken from a parsed template and the tree is rebuilt bottom-up.
enum TypenameRewriter {
    /// The alias used when the client's text does not contain it already.
    static let baseAlias = "_gqlgate_typename"

    static func rewrite(_ document: Document, query: String) -> TypenamedDocument {
        let alias = alias(avoiding: query)
        let field = typenameField(alias: alias)
        let definitions: [any Node] = document.definitions.map { definition in
            switch definition {
            case let operation as OperationDefinition:
                return operation.set(value: .node(rewrite(operation.selectionSet, addsTypename: false, field: field)), key: "selectionSet")
            case let fragment as FragmentDefinition:
                return fragment.set(value: .node(rewrite(fragment.selectionSet, addsTypename: true, field: field)), key: "selectionSet")
            default:
                return definition
            }
        }
        let rewritten = document.set(value: .array(definitions), key: "definitions")
        return TypenamedDocument(query: print(ast: rewritten), alias: alias)
    }

    /// `baseAlias`, or `baseAlias` with a number when the text already holds it.
    static func alias(avoiding query: String) -> String {
        var candidate = baseAlias
        var suffix = 1
        while query.contains(candidate) {
            candidate = baseAlias + String(suffix)
            suffix += 1
        }
        return candidate
    }

    /// `set` with its fields' sub-selections rewritten, plus the typename field
    /// when `addsTypename` (not for root selection sets). Inline fragments
    /// share their enclosing set's object, so they get none of their own.
    private static func rewrite(_ set: SelectionSet, addsTypename: Bool, field: Field) -> SelectionSet {
        var selections: [any Selection] = set.selections.map { selection in
            switch selection {
            case let child as Field:
                guard let sub = child.selectionSet else { return child }
                return child.set(value: .node(rewrite(sub, addsTypename: true, field: field)), key: "selectionSet")
            case let inline as InlineFragment:
                return inline.set(value: .node(rewrite(inline.selectionSet, addsTypename: false, field: field)), key: "selectionSet")
            default:
                return selection
            }
        }
        if addsTypename { selections.append(field) }
        return set.set(value: .array(selections), key: "selections")
    }

    private static func typenameField(alias: String) -> Field {
        do {
            let template = try parse(source: "{ \(alias): __typename }", noLocation: true)
            if let operation = template.definitions.first as? OperationDefinition,
               let field = operation.selectionSet.selections.first as? Field {
                return field
            }
        } catch {}
        preconditionFailure("the typename template always parses: \(alias) is a valid GraphQL name")
    }
}
