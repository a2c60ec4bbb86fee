import GQLGatePipeline
import GraphQL

/// The slot the schema coordinates of a document's operations are kept in,
/// under a `LoadedSchema.generation`.
enum FieldSelectionMemo: DocumentMemo {
    typealias Value = PerOperation<SelectedFields>
}

extension LoadedSchema {
    /// The coordinates `document`'s operations select when they were read
    /// against this schema already; never reads (the server thread asks).
    func knownSelections(in document: AnalysedDocument) -> PerOperation<SelectedFields>? {
        document.known(FieldSelectionMemo.self, key: generation)
    }

    /// The coordinates `document`'s operations select, read once per document and schema.
    func selections(in document: AnalysedDocument) -> PerOperation<SelectedFields> {
        var reader = SelectedFieldsReader(schema: schema, document: document.document)
        return document.perOperation(FieldSelectionMemo.self, key: generation) { reader.read($0) }
    }
}

/// Reads the schema coordinates (`Type.field`, the type being the one the
/// field is selected on: an interface's field counts on the interface)
/// an operation selects, fragments expanded, each once. Fields the schema
/// lacks and introspection's are left out.
struct SelectedFieldsReader {
    let schema: GraphQLSchema
    private let fragments: [String: FragmentDefinition]
    private var seen: Set<String> = []
    private var coordinates: [FieldCoordinate] = []
    private var expanded: Set<String> = []

    init(schema: GraphQLSchema, document: Document) {
        self.schema = schema
        fragments = document.fragmentsByName
    }

    mutating func read(_ operation: OperationDefinition) -> SelectedFields {
        (seen, coordinates, expanded) = ([], [], [])
        let root: GraphQLObjectType? = switch operation.operation {
        case .query: schema.queryType
        case .mutation: schema.mutationType
        case .subscription: schema.subscriptionType
        }
        if let root { read(operation.selectionSet, on: root, depth: 0) }
        return SelectedFields(coordinates)
    }

    private mutating func read(_ set: SelectionSet, on type: any GraphQLNamedType, depth: Int) {
        guard depth < 512 else { return }
        let fields: GraphQLFieldMap? = switch type {
        case let object as GraphQLObjectType: try? object.fields()
        case let interface as GraphQLInterfaceType: try? interface.fields()
        default: nil
        }
        for selection in set.selections {
            switch selection {
            case let field as Field:
                let name = field.name.value
                guard !name.hasPrefix("__"), let definition = fields?[name] else { continue }
                let coordinate = "\(type.name).\(name)"
                if seen.insert(coordinate).inserted {
                    coordinates.append(FieldCoordinates.intern(coordinate, isDeprecated: definition.deprecationReason != nil))
                }
                if let child = field.selectionSet, let named = getNamedType(type: definition.type) { read(child, on: named, depth: depth + 1) }
            case let inline as InlineFragment:
                let condition = inline.typeCondition.flatMap { schema.getType(name: $0.name.value) } ?? type
                read(inline.selectionSet, on: condition, depth: depth + 1)
            case let spread as FragmentSpread:
                // A named fragment's coordinates are the same wherever it is spread: each is read once.
                guard expanded.insert(spread.name.value).inserted, let fragment = fragments[spread.name.value],
                      let condition = schema.getType(name: fragment.typeCondition.name.value)
                else { continue }
                read(fragment.selectionSet, on: condition, depth: depth + 1)
            default:
                continue
            }
        }
    }
}
