package import GQLGatePipeline

extension CostPlan {
    /// The operation's cost as its answer's `data` shows it (IBM query
    /// response analysis), with the estimate's weights: each object and
    /// field that is there, lists by their real lengths, arguments once per
    /// field; what is null or absent costs nothing.
    package func actual(data: JSONValue?, variables: JSONValue?) -> Double {
        guard let data, data.isObject else { return base }
        let values = CostVariables(variables, defaults: variableDefaults)
        return base + selection.actual(data, in: schema, variables: values)
    }
}

extension PlannedSelection {
    func actual(_ value: JSONValue, in schema: CostSchema, variables: CostVariables) -> Double {
        guard case .object(let members) = value else { return 0 }
        let typename = if case .string(let name)? = value["__typename"] { name } else { String?.none }
        var cost = 0.0
        for field in fields {
            if let typename, let types = field.appliesTo, !types.contains(typename) { continue }
            guard let found = members.first(where: { $0.key == field.responseKey })?.value else { continue }
            cost += field.actual(found, in: schema, variables: variables)
        }
        return cost
    }
}

extension PlannedField {
    func actual(_ value: JSONValue, in schema: CostSchema, variables: CostVariables) -> Double {
        let produced = produced(value, in: schema, variables: variables)
        guard produced > 0 || !value.isNull else { return 0 }
        let arguments = self.arguments.reduce(0) { $0 + $1.value.cost(as: $1.slot, in: schema, variables: variables) }
        return max(0, produced + arguments)
    }

    /// What the values of the field cost: each one its weight and its selections'.
    private func produced(_ value: JSONValue, in schema: CostSchema, variables: CostVariables) -> Double {
        switch value {
        case .null: 0
        case .array(let values): values.reduce(0) { $0 + produced($1, in: schema, variables: variables) }
        default: definition.weight + (selection?.actual(value, in: schema, variables: variables) ?? 0)
        }
    }
}

private extension JSONValue {
    var isNull: Bool {
        if case .null = self { true } else { false }
    }
}
