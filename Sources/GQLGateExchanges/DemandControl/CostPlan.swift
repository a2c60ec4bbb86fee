package import GQLGatePipeline

/// How one operation of a document is costed, worked out once per document
/// and `CostSchema` (`CostPlanner`): its fields with their weights, list
/// sizes and arguments, fragments expanded. The estimate is a constant when
/// no variable changes it; else it is worked out from the plan for each
/// request's variables (a few additions per field).
package struct CostPlan: Sendable {
    /// 10 for a mutation, else 0.
    let base: Double
    let selection: PlannedSelection
    /// The estimate, when no variable changes it.
    let constant: Double?
    /// The defaults of the variables the operation declares.
    let variableDefaults: [String: JSONValue]
    let schema: CostSchema

    /// The estimated cost (IBM static analysis) with the request's `variables`.
    package func estimate(variables: JSONValue?) -> Double {
        if let constant { return constant }
        return base + selection.estimate(in: schema, variables: CostVariables(variables, defaults: variableDefaults), sized: nil)
    }
}

/// The fields a selection set selects, fragments expanded.
struct PlannedSelection: Sendable {
    let fields: [PlannedField]
    /// Set when the parent is an interface or a union and some fields apply
    /// to only some of its object types: the estimate is the most any of
    /// these types would cost (§7.2), not the sum of every fragment.
    let possibleTypes: [String]?

    func estimate(in schema: CostSchema, variables: CostVariables, sized: SizedFields?) -> Double {
        guard let possibleTypes else {
            return fields.reduce(0) { $0 + $1.estimate(in: schema, variables: variables, sized: sized) }
        }
        var most = 0.0
        for type in possibleTypes {
            var cost = 0.0
            for field in fields where field.appliesTo?.contains(type) ?? true {
                cost += field.estimate(in: schema, variables: variables, sized: sized)
            }
            most = max(most, cost)
        }
        return most
    }
}

/// A list size a `@listSize(sizedFields:)` hands from a field to fields of its type.
struct SizedFields {
    let size: Double
    let names: [String]
}

/// One field an operation selects.
struct PlannedField: Sendable {
    let name: String
    let responseKey: String
    let definition: CostSchema.OutputField
    /// The object types its fragments' type conditions allow; nil: every one.
    let appliesTo: Set<String>?
    /// The arguments whose values may cost something.
    let arguments: [(slot: CostSchema.InputSlot, value: CostValue)]
    /// Its list's length; nil: `list_size`.
    let size: PlannedSize?
    /// `@skip`/`@include` conditions on variables (literal ones are applied when planning).
    let conditions: [PlannedCondition]
    let selection: PlannedSelection?

    func estimate(in schema: CostSchema, variables: CostVariables, sized: SizedFields?) -> Double {
        guard conditions.allSatisfy({ $0.includes(variables) }) else { return 0 }
        let ownSize = size?.length(variables) ?? Double(schema.listSize)
        let count = if let sized, sized.names.contains(name) { sized.size } else if definition.isList { ownSize } else { 1.0 }
        let handed = definition.listSize.flatMap { $0.sizedFields.isEmpty ? nil : SizedFields(size: ownSize, names: $0.sizedFields) }
        let selected = selection?.estimate(in: schema, variables: variables, sized: handed) ?? 0
        let arguments = self.arguments.reduce(0) { $0 + $1.value.cost(as: $1.slot, in: schema, variables: variables) }
        return max(0, count * (definition.weight + selected) + arguments)
    }
}

/// A list's length from `@listSize`: the largest slicing argument given
/// (literal, variable, or the argument's default), else `assumedSize`,
/// else `list_size`.
struct PlannedSize: Sendable {
    /// The largest literal (or schema default) among the slicing arguments.
    let literal: Int?
    /// The variables slicing arguments are set from.
    let variables: [String]
    let fallback: Int

    func length(_ values: CostVariables) -> Double {
        var largest = literal
        for name in variables {
            if let value = values.integer(name) { largest = max(largest ?? value, value) }
        }
        return Double(max(0, largest ?? fallback))
    }
}

/// A `@skip(if: $v)` or `@include(if: $v)`.
struct PlannedCondition: Sendable {
    let variable: String
    let skips: Bool

    func includes(_ variables: CostVariables) -> Bool {
        guard let value = variables.boolean(variable) else { return true }
        return value != skips
    }
}
