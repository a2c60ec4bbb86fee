import GQLGatePipeline
import GraphQL

/// Plans the cost of a document's operations against a `CostSchema`
/// (`CostPlan`): fragments expanded, `@skip`/`@include` with literal
/// conditions applied, list sizes and argument costs looked up, and the
/// estimate worked out at once when no variable changes it. Fields the
/// schema lacks cost nothing (with `schema.validate: false` such documents
/// are passed on); `__typename` and introspection cost nothing (they are
/// the gateway's and `limits.introspection`'s business). A document whose
/// fragments expand to more than `mostFields` fields (a few spreads of
/// spreads can multiply without bound) is estimated at `beyondBound`.
struct CostPlanner {
    /// The most fields a plan holds, fragments expanded (a plan is kept with its
    /// document: this bounds its memory, a few MiB at most).
    static let mostFields = 20_000
    /// The estimate of an operation whose plan would pass `mostFields`.
    static let beyondBound = 1e12

    let schema: CostSchema
    private let fragments: [String: FragmentDefinition]
    private var dependsOnVariables = false
    private var plannedFields = 0

    init(schema: CostSchema, document: Document) {
        self.schema = schema
        fragments = document.fragmentsByName
    }

    /// The plan of `operation`; nil when the schema has no root type for its kind.
    mutating func plan(_ operation: OperationDefinition) -> CostPlan? {
        let kind = OperationKind(operation.operation)
        guard let root = schema.rootTypes[kind] else { return nil }
        (dependsOnVariables, plannedFields) = (false, 0)
        var defaults: [String: JSONValue] = [:]
        for definition in operation.variableDefinitions {
            if let value = definition.defaultValue { defaults[definition.variable.name.value] = Self.json(value) }
        }
        let selection = plan(operation.selectionSet, on: root, depth: 0)
        let base: Double = kind == .mutation ? 10 : 0
        guard plannedFields <= Self.mostFields else {
            return CostPlan(base: base, selection: PlannedSelection(fields: [], possibleTypes: nil), constant: Self.beyondBound,
                            variableDefaults: defaults, schema: schema)
        }
        let partial = CostPlan(base: base, selection: selection, constant: nil, variableDefaults: defaults, schema: schema)
        guard !dependsOnVariables else { return partial }
        // A constant estimate needs no fields, unless actual costs are worked out from them.
        let kept = schema.keepsConstantPlans ? selection : PlannedSelection(fields: [], possibleTypes: nil)
        return CostPlan(base: base, selection: kept, constant: partial.estimate(variables: nil), variableDefaults: defaults, schema: schema)
    }

    private mutating func plan(_ set: SelectionSet, on typeName: String, depth: Int) -> PlannedSelection {
        var fields: [PlannedField] = []
        collect(set, on: typeName, appliesTo: nil, conditions: [], depth: depth, into: &fields)
        let isAbstract = schema.types[typeName].map { $0.kind == .interface || $0.kind == .union } ?? false
        let partial = isAbstract && fields.contains { $0.appliesTo != nil }
        return PlannedSelection(fields: fields, possibleTypes: partial ? schema.possibleTypes(of: typeName) : nil)
    }

    /// The fields of `set`, selected on `typeName`, with fragments expanded
    /// and the type conditions and variable conditions they sit under.
    private mutating func collect(_ set: SelectionSet, on typeName: String, appliesTo: Set<String>?, conditions: [PlannedCondition],
                                  depth: Int, into fields: inout [PlannedField]) {
        // Nesting beyond this is refused by `limits.max_depth` long before; a bound that keeps recursion finite.
        guard depth < 512, plannedFields <= Self.mostFields else { return }
        for selection in set.selections {
            switch selection {
            case let field as Field:
                guard let own = conditionsApplying(field.directives, to: conditions) else { continue }
                if let planned = plan(field, on: typeName, appliesTo: appliesTo, conditions: own, depth: depth) { fields.append(planned) }
            case let inline as InlineFragment:
                guard let own = conditionsApplying(inline.directives, to: conditions) else { continue }
                let condition = inline.typeCondition?.name.value ?? typeName
                collect(inline.selectionSet, on: condition, appliesTo: narrowed(appliesTo, by: condition, within: typeName),
                        conditions: own, depth: depth + 1, into: &fields)
            case let spread as FragmentSpread:
                guard let own = conditionsApplying(spread.directives, to: conditions),
                      let fragment = fragments[spread.name.value] else { continue }
                let condition = fragment.typeCondition.name.value
                collect(fragment.selectionSet, on: condition, appliesTo: narrowed(appliesTo, by: condition, within: typeName),
                        conditions: own, depth: depth + 1, into: &fields)
            default:
                continue
            }
        }
    }

    private mutating func plan(_ field: Field, on typeName: String, appliesTo: Set<String>?, conditions: [PlannedCondition],
                               depth: Int) -> PlannedField? {
        let name = field.name.value
        plannedFields += 1
        guard plannedFields <= Self.mostFields, !name.hasPrefix("__"), let definition = schema.field(name, of: typeName) else { return nil }
        var arguments: [(slot: CostSchema.InputSlot, value: CostValue)] = []
        var given: [String: CostValue] = [:]
        for argument in field.arguments {
            guard let slot = definition.arguments[argument.name.value] else { continue }
            let value = CostValue(argument.value)
            given[argument.name.value] = value
            guard slot.mayCost else { continue }
            if value.dependsOnVariables(as: slot, in: schema) { dependsOnVariables = true }
            arguments.append((slot, value))
        }
        let selection = field.selectionSet.map { plan($0, on: definition.typeName, depth: depth + 1) }
        if !conditions.isEmpty { dependsOnVariables = true }
        return PlannedField(name: name, responseKey: field.alias?.value ?? name, definition: definition, appliesTo: appliesTo,
                            arguments: arguments, size: size(of: definition, given: given), conditions: conditions, selection: selection)
    }

    /// The length `@listSize` gives the field's list, from the slicing
    /// arguments given (or their defaults), else `assumedSize`.
    private mutating func size(of definition: CostSchema.OutputField, given: [String: CostValue]) -> PlannedSize? {
        guard let rule = definition.listSize else { return nil }
        var literal: Int?
        var variables: [String] = []
        for name in rule.slicingArguments {
            switch given[name] {
            case .integer(let value)?: literal = max(literal ?? value, value)
            case .variable(let variable)?:
                variables.append(variable)
                dependsOnVariables = true
            case nil:
                if let value = definition.arguments[name]?.defaultInteger { literal = max(literal ?? value, value) }
            default:
                continue
            }
        }
        return PlannedSize(literal: literal, variables: variables, fallback: rule.assumedSize ?? schema.listSize)
    }

    /// The object types a fragment on `condition` inside a selection on
    /// `parent` applies to; nil when it applies to every one `parent` may be.
    private func narrowed(_ appliesTo: Set<String>?, by condition: String, within parent: String) -> Set<String>? {
        guard condition != parent else { return appliesTo }
        let types = Set(schema.possibleTypes(of: condition))
        if let appliesTo { return appliesTo.intersection(types) }
        return Set(schema.possibleTypes(of: parent)).isSubset(of: types) ? nil : types
    }

    /// `conditions` with those of `directives` added; nil when a literal `@skip(if: true)` or `@include(if: false)` drops the selection.
    private func conditionsApplying(_ directives: [Directive], to conditions: [PlannedCondition]) -> [PlannedCondition]? {
        var all = conditions
        for directive in directives where directive.name.value == "skip" || directive.name.value == "include" {
            let skips = directive.name.value == "skip"
            switch directive.arguments.first(where: { $0.name.value == "if" })?.value {
            case let flag as BooleanValue where flag.value == skips: return nil
            case let variable as Variable: all.append(PlannedCondition(variable: variable.name.value, skips: skips))
            default: continue
            }
        }
        return all
    }

    /// A default value as JSON (what a request's variable would hold).
    private static func json(_ value: any Value) -> JSONValue {
        switch value {
        case let number as IntValue: Int(number.value).map(JSONValue.integer) ?? .number(number.value)
        case let number as FloatValue: .number(number.value)
        case let text as StringValue: .string(text.value)
        case let flag as BooleanValue: .bool(flag.value)
        case let enumValue as EnumValue: .string(enumValue.value)
        case let list as ListValue: .array(list.values.map(json))
        case let object as ObjectValue: .object(object.fields.map { ($0.name.value, json($0.value)) })
        default: .null
        }
    }
}
