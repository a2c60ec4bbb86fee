package import GQLGatePipeline
import GraphQL

extension AnalysedDocument {
    /// The scalar and enum argument values of the root fields of the operation
    /// `operationName` picks, variables resolved, as text by argument name
    /// (`episode` → `["JEDI"]`). Lists, input objects and nulls are left out.
    /// The response cache uses them to tell which cached lists a mutation may
    /// have changed (`createReview(episode: JEDI)` and `reviews(episode: EMPIRE)`
    /// disagree on `episode`).
    package func rootArguments(operationName: String?, variables: JSONValue?) -> [String: Set<String>] {
        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        let chosen = operationName.flatMap { name in operations.first { $0.name?.value == name } }
            ?? (operations.count == 1 ? operations.first : nil)
        guard let chosen else { return [:] }
        var fragments: [String: SelectionSet] = [:]
        for case let fragment as FragmentDefinition in document.definitions {
            fragments[fragment.name.value] = fragment.selectionSet
        }
        // A table, so that many arguments over many variables stay linear.
        var byName: [String: JSONValue] = [:]
        if case .object(let members)? = variables {
            byName = Dictionary(members, uniquingKeysWith: { first, _ in first })
        }
        var values: [String: Set<String>] = [:]
        var visited: Set<String> = []
        collect(chosen.selectionSet, fragments: fragments, variables: byName, visited: &visited, into: &values)
        return values
    }

    private func collect(_ set: SelectionSet, fragments: [String: SelectionSet], variables: [String: JSONValue],
                         visited: inout Set<String>, into values: inout [String: Set<String>]) {
        for selection in set.selections {
            switch selection {
            case let field as Field:
                for argument in field.arguments {
                    if let text = Self.text(of: argument.value, variables: variables) {
                        values[argument.name.value, default: []].insert(text)
                    }
                }
            case let inline as InlineFragment:
                collect(inline.selectionSet, fragments: fragments, variables: variables, visited: &visited, into: &values)
            case let spread as FragmentSpread:
                let name = spread.name.value
                guard let fragment = fragments[name], visited.insert(name).inserted else { continue }
                collect(fragment, fragments: fragments, variables: variables, visited: &visited, into: &values)
            default:
                continue
            }
        }
    }

    private static func text(of value: any GraphQL.Value, variables: [String: JSONValue]) -> String? {
        switch value {
        case let variable as Variable:
            switch variables[variable.name.value] {
            case .string(let text): return text
            case .integer(let number): return String(number)
            case .bool(let flag): return flag ? "true" : "false"
            case .number(let text): return text
            default: return nil
            }
        case let string as StringValue: return string.value
        case let enumValue as EnumValue: return enumValue.value
        case let int as IntValue: return int.value
        case let float as FloatValue: return float.value
        case let bool as BooleanValue: return bool.value ? "true" : "false"
        default: return nil
        }
    }
}
