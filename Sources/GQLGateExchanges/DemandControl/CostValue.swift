import GQLGatePipeline
import GraphQL

/// An argument's value as a cost plan keeps it: what its cost depends on
/// (nulls, lists, input objects' fields, integers for slicing arguments)
/// and the variables it names, without the document's tree.
indirect enum CostValue: Sendable {
    case null
    /// An integer literal (a slicing argument's length).
    case integer(Int)
    /// Any other scalar or enum literal.
    case scalar
    case list([CostValue])
    case object([(name: String, value: CostValue)])
    case variable(String)

    init(_ value: any Value) {
        switch value {
        case is NullValue: self = .null
        case let number as IntValue: self = Int(number.value).map(CostValue.integer) ?? .scalar
        case let list as ListValue: self = .list(list.values.map(CostValue.init))
        case let object as ObjectValue: self = .object(object.fields.map { ($0.name.value, CostValue($0.value)) })
        case let variable as Variable: self = .variable(variable.name.value)
        default: self = .scalar
        }
    }

    /// Whether its cost as a value of `slot` may change with the variables.
    func dependsOnVariables(as slot: CostSchema.InputSlot, in schema: CostSchema) -> Bool {
        switch self {
        case .null, .integer, .scalar: false
        case .variable: slot.mayCost
        case .list(let values): values.contains { $0.dependsOnVariables(as: slot, in: schema) }
        case .object(let fields):
            fields.contains { field in
                schema.types[slot.typeName]?.inputFields[field.name].map { field.value.dependsOnVariables(as: $0, in: schema) } ?? false
            }
        }
    }

    /// Its cost as a value of `slot` (§5.3.2.2, "Arguments"): the slot's
    /// weight, plus the cost of each input field it sets; a list, each of its values.
    func cost(as slot: CostSchema.InputSlot, in schema: CostSchema, variables: CostVariables) -> Double {
        switch self {
        case .null: return 0
        case .integer, .scalar: return slot.weight
        case .variable(let name): return variables[name].map { Self.cost(of: $0, as: slot, in: schema) } ?? 0
        case .list(let values): return values.reduce(slot.explicitWeight ?? 0) { $0 + $1.cost(as: slot, in: schema, variables: variables) }
        case .object(let fields):
            let inputFields = schema.types[slot.typeName]?.inputFields ?? [:]
            return fields.reduce(slot.weight) { sum, field in
                sum + (inputFields[field.name].map { field.value.cost(as: $0, in: schema, variables: variables) } ?? 0)
            }
        }
    }

    /// The cost of a variable's value as a value of `slot`, by the same rules.
    static func cost(of value: JSONValue, as slot: CostSchema.InputSlot, in schema: CostSchema) -> Double {
        switch value {
        case .null: return 0
        case .array(let values): return values.reduce(slot.explicitWeight ?? 0) { $0 + cost(of: $1, as: slot, in: schema) }
        case .object(let members):
            let inputFields = schema.types[slot.typeName]?.inputFields ?? [:]
            return members.reduce(slot.weight) { sum, member in
                sum + (inputFields[member.key].map { cost(of: member.value, as: $0, in: schema) } ?? 0)
            }
        default: return slot.weight
        }
    }
}

/// The variables an estimate reads: the request's, else the defaults the
/// operation declares.
struct CostVariables {
    let request: [(key: String, value: JSONValue)]
    let defaults: [String: JSONValue]

    init(_ request: JSONValue?, defaults: [String: JSONValue]) {
        if case .object(let members)? = request { self.request = members } else { self.request = [] }
        self.defaults = defaults
    }

    subscript(name: String) -> JSONValue? {
        request.first { $0.key == name }?.value ?? defaults[name]
    }

    /// The variable `name` as an integer, when it is one.
    func integer(_ name: String) -> Int? {
        switch self[name] {
        case .integer(let value)?: value
        case .number(let text)?: Double(text).flatMap { $0.rounded() == $0 && abs($0) < 1e15 ? Int($0) : nil }
        default: nil
        }
    }

    /// The variable `name` as a Boolean, when it is one.
    func boolean(_ name: String) -> Bool? {
        if case .bool(let value)? = self[name] { value } else { nil }
    }
}
