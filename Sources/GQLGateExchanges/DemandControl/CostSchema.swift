import GQLGatePipeline
import GraphQL
import Synchronization

/// The weights of one schema under one `demand_control` setting, resolved
/// once per schema load as the IBM GraphQL Cost Directives specification
/// says (§7.1), so that planning a document only looks them up:
/// - a field weighs its `weights` entry (`Type.field`), else its `@cost`,
///   else its type's: the type's `weights` entry, else its `@cost`, else 1
///   for objects, interfaces and unions and 0 for scalars and enums;
/// - an interface's field, and an interface or union type, weigh the most
///   any of their object types does (the specification puts no `@cost` on
///   abstract types, so that the estimate bounds every answer);
/// - an argument or input field weighs its `@cost`, else 1 when it is an
///   input object and 0 when it is a scalar or an enum.
package final class CostSchema: Sendable {
    /// A field of an object or interface type.
    struct OutputField: Sendable {
        let weight: Double
        /// The named type it returns.
        let typeName: String
        let isList: Bool
        let listSize: ListSizeRule?
        let arguments: [String: InputSlot]
        let isDeprecated: Bool
    }

    /// An argument or an input object's field.
    struct InputSlot: Sendable {
        /// Its `@cost`, else 1 for an input object and 0 for a scalar or an enum.
        let weight: Double
        /// Its `@cost`, when it has one (a list of values weighs this, plus each value).
        let explicitWeight: Double?
        let typeName: String
        let isList: Bool
        let isInputObject: Bool
        /// The default value when it is an integer (a slicing argument's).
        let defaultInteger: Int?

        /// Whether some value of it may cost something (else its values need no look).
        var mayCost: Bool { weight != 0 || isInputObject }
    }

    enum Kind: Sendable {
        case object, interface, union, leaf, inputObject
    }

    struct TypeEntry: Sendable {
        let kind: Kind
        var fields: [String: OutputField] = [:]
        var inputFields: [String: InputSlot] = [:]
        /// The object types an interface or union may be.
        var possibleTypes: [String] = []
    }

    let types: [String: TypeEntry]
    let rootTypes: [OperationKind: String]
    /// `demand_control.list_size`.
    let listSize: Int
    /// `demand_control.max_cost`.
    package let maxCost: Double
    /// Whether plans keep their fields when their estimate is a constant
    /// (`expose` works out actual costs from them); else only the constant is kept.
    let keepsConstantPlans: Bool
    /// The generation of the schema it was resolved from.
    package let schemaGeneration: Int
    /// Tells one resolution from another (plans are kept per resolution).
    let identity: Int

    private static let identities = Atomic<Int>(0)

    /// The weights of `schema` under `settings`.
    package init(schema loaded: LoadedSchema, settings: DemandControlSettings) {
        let schema = loaded.schema
        let directives = CostDirectives(sdl: loaded.sdl)
        var resolver = WeightResolver(schema: schema, directives: directives, weights: settings.weights)
        var types: [String: TypeEntry] = [:]
        for (name, type) in schema.typeMap where !name.hasPrefix("__") {
            types[name] = resolver.entry(for: type)
        }
        self.types = types
        var roots: [OperationKind: String] = [:]
        if let query = schema.queryType { roots[.query] = query.name }
        if let mutation = schema.mutationType { roots[.mutation] = mutation.name }
        if let subscription = schema.subscriptionType { roots[.subscription] = subscription.name }
        rootTypes = roots
        listSize = settings.listSize
        maxCost = settings.maxCost
        keepsConstantPlans = settings.expose
        schemaGeneration = loaded.generation
        identity = Self.identities.add(1, ordering: .relaxed).newValue
    }

    /// The field `name` of the object or interface type `typeName`.
    func field(_ name: String, of typeName: String) -> OutputField? {
        types[typeName]?.fields[name]
    }

    /// The object types a value of `typeName` may be: itself for an object type.
    func possibleTypes(of typeName: String) -> [String] {
        guard let entry = types[typeName] else { return [] }
        return entry.kind == .object ? [typeName] : entry.possibleTypes
    }
}

/// Works out `CostSchema`'s weights, each type's once.
private struct WeightResolver {
    let schema: GraphQLSchema
    let directives: CostDirectives
    let weights: [String: Double]
    private var typeWeights: [String: Double] = [:]

    init(schema: GraphQLSchema, directives: CostDirectives, weights: [String: Double]) {
        self.schema = schema
        self.directives = directives
        self.weights = weights
    }

    mutating func entry(for type: any GraphQLNamedType) -> CostSchema.TypeEntry {
        switch type {
        case let object as GraphQLObjectType:
            var entry = CostSchema.TypeEntry(kind: .object)
            for (name, field) in (try? object.fields()) ?? [:] {
                entry.fields[name] = outputField(name, field, of: object.name, weight: fieldWeight(object.name, name, field))
            }
            return entry
        case let interface as GraphQLInterfaceType:
            var entry = CostSchema.TypeEntry(kind: .interface, possibleTypes: schema.getPossibleTypes(abstractType: interface).map(\.name))
            let implementations = schema.getPossibleTypes(abstractType: interface)
            for (name, field) in (try? interface.fields()) ?? [:] {
                // The most any implementation's field weighs (§7.2), unless set for the interface's field
                // itself (in `weights`, or a `@cost` the specification does not allow there but a schema may carry).
                var weight = weights["\(interface.name).\(name)"] ?? directives.fields["\(interface.name).\(name)"]
                if weight == nil {
                    let implemented = implementations.compactMap { object in
                        ((try? object.fields()) ?? [:])[name].map { fieldWeight(object.name, name, $0) }
                    }
                    weight = implemented.max() ?? fieldWeight(interface.name, name, field)
                }
                entry.fields[name] = outputField(name, field, of: interface.name, weight: weight ?? 0)
            }
            return entry
        case let union as GraphQLUnionType:
            return CostSchema.TypeEntry(kind: .union, possibleTypes: schema.getPossibleTypes(abstractType: union).map(\.name))
        case let input as GraphQLInputObjectType:
            var entry = CostSchema.TypeEntry(kind: .inputObject)
            for (name, field) in (try? input.fields()) ?? [:] {
                entry.inputFields[name] = inputSlot(field.type, defaultValue: field.defaultValue,
                                                    explicit: directives.inputFields["\(input.name).\(name)"])
            }
            return entry
        default:
            return CostSchema.TypeEntry(kind: .leaf)
        }
    }

    private func outputField(_ name: String, _ field: GraphQLField, of typeName: String, weight: Double) -> CostSchema.OutputField {
        let coordinate = "\(typeName).\(name)"
        var arguments: [String: CostSchema.InputSlot] = [:]
        for (argument, definition) in field.args {
            arguments[argument] = inputSlot(definition.type, defaultValue: definition.defaultValue,
                                            explicit: directives.arguments["\(coordinate)(\(argument):)"])
        }
        return CostSchema.OutputField(
            weight: weight, typeName: getNamedType(type: field.type)?.name ?? "", isList: Self.isList(field.type),
            listSize: directives.listSizes[coordinate], arguments: arguments, isDeprecated: field.deprecationReason != nil)
    }

    private func inputSlot(_ type: any GraphQLInputType, defaultValue: Map?, explicit: Double?) -> CostSchema.InputSlot {
        let named = getNamedType(type: type)
        let isInputObject = named is GraphQLInputObjectType
        let defaultInteger: Int? = switch defaultValue {
        case .number(let number)?: number.doubleValue.rounded() == number.doubleValue ? number.intValue : nil
        default: nil
        }
        return CostSchema.InputSlot(weight: explicit ?? (isInputObject ? 1 : 0), explicitWeight: explicit, typeName: named?.name ?? "", isList: Self.isList(type),
                                    isInputObject: isInputObject, defaultInteger: defaultInteger)
    }

    /// A field's own weight: its `weights` entry, its `@cost`, else its type's.
    private mutating func fieldWeight(_ typeName: String, _ name: String, _ field: GraphQLField) -> Double {
        let coordinate = "\(typeName).\(name)"
        if let weight = weights[coordinate] ?? directives.fields[coordinate] { return weight }
        guard let named = getNamedType(type: field.type) else { return 0 }
        return typeWeight(named)
    }

    /// A type's weight: its `weights` entry, its `@cost`, the most of its
    /// object types' (interfaces and unions), else 1 (composite) or 0 (leaf).
    private mutating func typeWeight(_ type: any GraphQLNamedType) -> Double {
        if let known = typeWeights[type.name] { return known }
        let weight: Double
        if let set = weights[type.name] ?? directives.types[type.name] {
            weight = set
        } else if let abstract = type as? any GraphQLAbstractType {
            weight = schema.getPossibleTypes(abstractType: abstract).map { weights[$0.name] ?? directives.types[$0.name] ?? 1 }.max() ?? 1
        } else {
            weight = type is any GraphQLLeafType ? 0 : 1
        }
        typeWeights[type.name] = weight
        return weight
    }

    private static func isList(_ type: any GraphQLType) -> Bool {
        switch type {
        case is GraphQLList: true
        case let nonNull as GraphQLNonNull: nonNull.ofType is GraphQLList
        default: false
        }
    }
}
