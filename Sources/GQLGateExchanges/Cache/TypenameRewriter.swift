package import GQLGatePipeline
import GraphQL

/// A document rewritten so that every object in its answers names its type
/// and, where the upstream schema gives its type an `id: ID!`, its id:
/// `alias: __typename` is added to every selection set but the operations'
/// root ones, and `idAlias: id` to those on identified types (in inline
/// fragments on each identified possible type of an interface or union
/// without an `id` of its own). The aliases are ones the client's text never
/// uses, so the gateway can strip exactly what it added from the answer,
/// whatever the client selected itself (its own `__typename`s and `id`s,
/// aliases, fragments).
package struct TypenamedDocument: Sendable, Equatable {
    /// The rewritten document text, to send upstream instead of the client's.
    package let query: String
    /// The response key under which the added `__typename` comes back.
    package let alias: String
    /// The response key under which the added `id` comes back; nil when the
    /// document was rewritten without a schema.
    package let idAlias: String?
}

extension AnalysedDocument {
    /// The document with `__typename` added to every non-root selection set
    /// under an alias of its own, rewritten once per distinct document; nil
    /// when it holds a definition other than an operation or a fragment.
    package var typenamed: TypenamedDocument? {
        typenamedForm(in: TypenamedMemo.self, schema: nil)
    }

    /// `typenamed` with `id` added too where `schema` gives the type one;
    /// `typenamed` itself without a schema. Rewritten once per document and
    /// schema (a new schema, learned on reload, rewrites again).
    package func typenamed(schema: EntitySchema?) -> TypenamedDocument? {
        guard let schema else { return typenamed }
        return typenamedForm(in: WithIDsMemo.self, schema: schema)
    }

    private func typenamedForm<Memo: DocumentMemo>(in memo: Memo.Type, schema: EntitySchema?) -> TypenamedDocument?
    where Memo.Value == TypenamedRewrite {
        memoized(memo, isCurrent: { $0.schema === schema }) {
            TypenamedRewrite(schema: schema, document: TypenameRewriter.rewrite(document, query: queryText, schema: schema))
        }.document
    }
}

/// A `typenamed` form kept with its document, and the schema it was rewritten for.
private struct TypenamedRewrite: Sendable {
    let schema: EntitySchema?
    let document: TypenamedDocument?
}

/// The slot of `typenamed`.
private enum TypenamedMemo: DocumentMemo {
    typealias Value = TypenamedRewrite
}

/// The slot of `typenamed(schema:)`, for the last schema asked for.
private enum WithIDsMemo: DocumentMemo {
    typealias Value = TypenamedRewrite
}

/// Adds the aliased `__typename` (and `id`) through GraphQLSwift's public
/// `set(value:key:)`, since its node initialisers are internal: the added
/// selections are taken from parsed templates and the tree is rebuilt
/// bottom-up, then printed by `DocumentPrinter` (linear in the document).
enum TypenameRewriter {
    /// The alias used when the client's text does not contain it already.
    static let baseAlias = "_gqlgate_typename"
    /// The `id` alias used when the client's text does not contain it already.
    static let baseIDAlias = "_gqlgate_id"

    /// nil when the document holds a definition other than an operation or a fragment.
    static func rewrite(_ document: Document, query: String, schema: EntitySchema? = nil) -> TypenamedDocument? {
        let alias = alias(avoiding: query)
        let idAlias = schema.map { _ in Self.alias(avoiding: query, base: baseIDAlias) }
        let additions = Additions(typename: typenameField(alias: alias), idAlias: idAlias, schema: schema)
        let definitions: [any Node] = document.definitions.map { definition in
            switch definition {
            case let operation as OperationDefinition:
                let root = schema?.rootTypes[OperationKind(operation.operation)]
                return operation.set(value: .node(additions.rewrite(operation.selectionSet, type: root, addsFields: false)), key: "selectionSet")
            case let fragment as FragmentDefinition:
                let type = fragment.typeCondition.name.value
                return fragment.set(value: .node(additions.rewrite(fragment.selectionSet, type: type, addsFields: true)), key: "selectionSet")
            default:
                return definition
            }
        }
        let rewritten = document.set(value: .array(definitions), key: "definitions")
        guard let printed = DocumentPrinter.print(rewritten) else { return nil }
        return TypenamedDocument(query: printed, alias: alias, idAlias: idAlias)
    }

    /// `base`, or `base` with a number when the text already holds it.
    static func alias(avoiding query: String, base: String = baseAlias) -> String {
        var candidate = base
        var suffix = 1
        while query.contains(candidate) {
            candidate = base + String(suffix)
            suffix += 1
        }
        return candidate
    }

    /// What is added to each selection set, and where.
    private struct Additions {
        let typename: any Selection
        let idAlias: String?
        let schema: EntitySchema?

        /// `set` (selecting from `type`, nil when unknown) with its fields'
        /// sub-selections rewritten, plus the typename and id selections when
        /// `addsFields` (not for root sets). Inline fragments share their
        /// enclosing set's object, so they get none of their own.
        func rewrite(_ set: SelectionSet, type: String?, addsFields: Bool) -> SelectionSet {
            var selections: [any Selection] = set.selections.map { selection in
                switch selection {
                case let child as Field:
                    guard let sub = child.selectionSet else { return child }
                    let childType = type.flatMap { schema?.type(ofField: child.name.value, on: $0) }
                    return child.set(value: .node(rewrite(sub, type: childType, addsFields: true)), key: "selectionSet")
                case let inline as InlineFragment:
                    let inlineType = inline.typeCondition?.name.value ?? type
                    return inline.set(value: .node(rewrite(inline.selectionSet, type: inlineType, addsFields: false)), key: "selectionSet")
                default:
                    return selection
                }
            }
            if addsFields {
                selections.append(typename)
                selections += idSelections(on: type)
            }
            return set.set(value: .array(selections), key: "selections")
        }

        private func idSelections(on type: String?) -> [any Selection] {
            guard let schema, let idAlias, let type else { return [] }
            switch schema.idSelection(on: type) {
            case .none: return []
            case .direct: return templateSelections("\(idAlias): id") ?? []
            case .perType(let types):
                return templateSelections(types.map { "... on \($0) { \(idAlias): id }" }.joined(separator: " ")) ?? []
            }
        }
    }

    /// The selections of `{ text }`; nil when it does not parse (a type
    /// name from the upstream's schema that is no GraphQL name).
    private static func templateSelections(_ text: String) -> [any Selection]? {
        guard let template = try? parse(source: "{ \(text) }", noLocation: true),
              let operation = template.definitions.first as? OperationDefinition
        else { return nil }
        return operation.selectionSet.selections
    }

    private static func typenameField(alias: String) -> any Selection {
        guard let field = templateSelections("\(alias): __typename")?.first else {
            preconditionFailure("the typename template always parses: \(alias) is a valid GraphQL name")
        }
        return field
    }
}
