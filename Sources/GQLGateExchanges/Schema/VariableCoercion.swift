import GQLGatePipeline
import GraphQL

/// Checks an operation's variables against their declared types, as the
/// specification's CoerceVariableValues does (§6.1.2): a required variable
/// is given, no non-null one is null, and each value can be coerced to its
/// type (lists, input objects with their fields, enums, the built-in
/// scalars; a custom scalar takes any value: only the API knows its rules).
/// Errors are worded as graphql-js words them.
enum VariableCoercion {
    /// Every problem with `values` (the request's `variables`) for `declared`; empty when they coerce.
    static func problems(_ values: JSONValue?, declared: [ValidationVerdict.DeclaredVariable]) -> [GatewayError.GraphQLProblem] {
        var problems: [GatewayError.GraphQLProblem] = []
        for variable in declared {
            guard let value = values?[variable.name] else {
                if variable.type is GraphQLNonNull, !variable.hasDefault {
                    problems.append(.init("Variable \"$\(variable.name)\" of required type \"\(variable.type)\" was not provided."))
                }
                continue
            }
            if value == .null, variable.type is GraphQLNonNull {
                problems.append(.init("Variable \"$\(variable.name)\" of non-null type \"\(variable.type)\" must not be null."))
                continue
            }
            var walk = Walk(variable: variable.name)
            walk.coerce(value, to: variable.type, path: "")
            problems += walk.problems
        }
        return problems
    }

    /// One variable's value, walked against its type.
    private struct Walk {
        let variable: String
        var problems: [GatewayError.GraphQLProblem] = []

        mutating func coerce(_ value: JSONValue, to type: any GraphQLInputType, path: String) {
            if let nonNull = type as? GraphQLNonNull {
                guard value != .null else {
                    return report("Expected non-nullable type \"\(type)\" not to be null.", value, path: path)
                }
                if let inner = nonNull.ofType as? any GraphQLInputType { coerce(value, to: inner, path: path) }
                return
            }
            if value == .null { return }
            switch type {
            case let list as GraphQLList:
                guard let item = list.ofType as? any GraphQLInputType else { return }
                if case .array(let items) = value {
                    for (index, element) in items.enumerated() { coerce(element, to: item, path: path + "[\(index)]") }
                } else {
                    coerce(value, to: item, path: path)
                }
            case let object as GraphQLInputObjectType:
                coerce(value, toObject: object, path: path)
            case let enumeration as GraphQLEnumType:
                guard case .string(let name) = value else {
                    return report("Enum \"\(enumeration.name)\" cannot represent non-string value: \(value.serialized()).", value, path: path)
                }
                if enumeration.nameLookup[name] == nil {
                    report("Value \"\(name)\" does not exist in \"\(enumeration.name)\" enum.", value, path: path)
                }
            case let scalar as GraphQLScalarType:
                if let problem = Self.scalarProblem(value, scalar: scalar.name) { report(problem, value, path: path) }
            default:
                return
            }
        }

        private mutating func coerce(_ value: JSONValue, toObject type: GraphQLInputObjectType, path: String) {
            guard case .object(let entries) = value else {
                return report("Expected type \"\(type.name)\" to be an object.", value, path: path)
            }
            guard let fields = try? type.fields() else { return }
            for (key, _) in entries where fields[key] == nil {
                report("Field \"\(key)\" is not defined by type \"\(type.name)\".", value, path: path)
            }
            for (name, field) in fields {
                guard let given = value[name] else {
                    if field.type is GraphQLNonNull, field.defaultValue == nil {
                        report("Field \"\(name)\" of required type \"\(field.type)\" was not provided.", value, path: path)
                    }
                    continue
                }
                coerce(given, to: field.type, path: path + "." + name)
            }
        }

        /// Why `value` is not a `scalar`; nil when it is (or the scalar is not a built-in one).
        private static func scalarProblem(_ value: JSONValue, scalar: String) -> String? {
            switch (scalar, value) {
            case ("Int", .integer(let integer)):
                return Int32(exactly: integer) == nil ? "Int cannot represent non 32-bit signed integer value: \(integer)" : nil
            case ("Int", .number(let text)):
                guard let number = Double(text), number.rounded() == number else {
                    return "Int cannot represent non-integer value: \(text)"
                }
                return Int32(exactly: number) == nil ? "Int cannot represent non 32-bit signed integer value: \(text)" : nil
            case ("Int", _): return "Int cannot represent non-integer value: \(value.serialized())"
            case ("Float", .integer), ("Float", .number): return nil
            case ("Float", _): return "Float cannot represent non numeric value: \(value.serialized())"
            case ("String", .string): return nil
            case ("String", _): return "String cannot represent a non string value: \(value.serialized())"
            case ("Boolean", .bool): return nil
            case ("Boolean", _): return "Boolean cannot represent a non boolean value: \(value.serialized())"
            case ("ID", .string), ("ID", .integer): return nil
            case ("ID", _): return "ID cannot represent value: \(value.serialized())"
            default: return nil
            }
        }

        /// `reason` about `value`, found at `path` (`.field`, `[index]`) in the variable's value.
        private mutating func report(_ reason: String, _ value: JSONValue, path: String) {
            let place = path.isEmpty ? "" : " at \"\(variable)\(path)\""
            problems.append(.init("Variable \"$\(variable)\" got invalid value \(value.serialized())\(place); \(reason)"))
        }
    }
}
