package import GQLGatePipeline

/// The upstream's schema as SDL, printed from its answer to
/// `IntrospectionSDL.query`: what `LoadedSchema(sdl:)` builds. GraphQLSwift
/// builds schemas from SDL only, and the printed text is also what the log
/// and the `sdlSHA256` of a reload compare.
package enum IntrospectionSDL {
    /// Everything validation needs: every type with its fields, arguments,
    /// input fields, enum values, interfaces and possible types (deprecated
    /// ones included), argument defaults, and the directives. No
    /// descriptions, and nothing newer than the October 2021 specification,
    /// so that any GraphQL server answers it.
    package static let query = """
        query GQLGateSchema { __schema { queryType { name } mutationType { name } subscriptionType { name } \
        types { ...FullType } directives { name locations args { ...InputValue } } } } \
        fragment FullType on __Type { kind name \
        fields(includeDeprecated: true) { name args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason } \
        inputFields { ...InputValue } interfaces { ...TypeRef } \
        enumValues(includeDeprecated: true) { name isDeprecated deprecationReason } possibleTypes { ...TypeRef } } \
        fragment InputValue on __InputValue { name type { ...TypeRef } defaultValue } \
        fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name \
        ofType { kind name ofType { kind name ofType { kind name } } } } } } } }
        """

    /// Directives every schema GraphQLSwift builds has already.
    private static let builtInDirectives: Set<String> = ["include", "skip", "deprecated", "specifiedBy", "oneOf"]
    private static let builtInScalars: Set<String> = ["String", "Int", "Float", "Boolean", "ID"]

    /// The SDL of the `data` of an answer to `query`; nil when it has no `__schema` with a query type.
    package static func sdl(fromIntrospection data: JSONValue) -> String? {
        guard let schema = data["__schema"], case .string(let queryType) = schema["queryType"]?["name"],
              case .array(let types) = schema["types"]
        else { return nil }
        var out = "schema {\n  query: \(queryType)\n"
        if case .string(let name) = schema["mutationType"]?["name"] { out += "  mutation: \(name)\n" }
        if case .string(let name) = schema["subscriptionType"]?["name"] { out += "  subscription: \(name)\n" }
        out += "}\n"
        if case .array(let directives) = schema["directives"] {
            for directive in directives {
                guard case .string(let name) = directive["name"], !builtInDirectives.contains(name),
                      case .array(let locations) = directive["locations"]
                else { continue }
                let places = locations.compactMap { if case .string(let place) = $0 { place } else { nil } }
                out += "\ndirective @\(name)\(arguments(directive["args"])) on \(places.joined(separator: " | "))\n"
            }
        }
        for type in types {
            guard case .string(let name) = type["name"], !name.hasPrefix("__"), case .string(let kind) = type["kind"] else { continue }
            switch kind {
            case "SCALAR" where !builtInScalars.contains(name):
                out += "\nscalar \(name)\n"
            case "OBJECT", "INTERFACE":
                out += "\n\(kind == "OBJECT" ? "type" : "interface") \(name)\(implements(type["interfaces"])) {\n"
                for field in list(type["fields"]) {
                    guard case .string(let fieldName) = field["name"], let fieldType = typeReference(field["type"]) else { continue }
                    out += "  \(fieldName)\(arguments(field["args"])): \(fieldType)\(deprecation(field))\n"
                }
                out += "}\n"
            case "UNION":
                let members = list(type["possibleTypes"]).compactMap { if case .string(let member) = $0["name"] { member } else { nil } }
                out += "\nunion \(name) = \(members.joined(separator: " | "))\n"
            case "ENUM":
                out += "\nenum \(name) {\n"
                for value in list(type["enumValues"]) {
                    guard case .string(let valueName) = value["name"] else { continue }
                    out += "  \(valueName)\(deprecation(value))\n"
                }
                out += "}\n"
            case "INPUT_OBJECT":
                out += "\ninput \(name) {\n"
                for field in list(type["inputFields"]) {
                    guard let printed = inputValue(field) else { continue }
                    out += "  \(printed)\n"
                }
                out += "}\n"
            default:
                continue
            }
        }
        return out
    }

    private static func list(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items)? = value { items } else { [] }
    }

    /// ` implements A & B`, or nothing.
    private static func implements(_ interfaces: JSONValue?) -> String {
        let names = list(interfaces).compactMap { if case .string(let name) = $0["name"] { name } else { nil } }
        return names.isEmpty ? "" : " implements " + names.joined(separator: " & ")
    }

    /// `(a: Int = 1, b: String!)`, or nothing.
    private static func arguments(_ args: JSONValue?) -> String {
        let printed = list(args).compactMap(inputValue)
        return printed.isEmpty ? "" : "(" + printed.joined(separator: ", ") + ")"
    }

    /// `name: Type = default`; the default is GraphQL text already.
    private static func inputValue(_ value: JSONValue) -> String? {
        guard case .string(let name) = value["name"], let type = typeReference(value["type"]) else { return nil }
        if case .string(let defaultValue) = value["defaultValue"] { return "\(name): \(type) = \(defaultValue)" }
        return "\(name): \(type)"
    }

    /// ` @deprecated(reason: "...")` for a deprecated field or enum value.
    private static func deprecation(_ value: JSONValue) -> String {
        guard value["isDeprecated"] == .bool(true) else { return "" }
        guard case .string(let reason) = value["deprecationReason"] else { return " @deprecated" }
        return " @deprecated(reason: \(JSONValue.string(reason).serialized()))"
    }

    /// `[Type!]!` from an introspection type reference.
    private static func typeReference(_ type: JSONValue?) -> String? {
        guard let type, case .string(let kind) = type["kind"] else { return nil }
        switch kind {
        case "NON_NULL": return typeReference(type["ofType"]).map { $0 + "!" }
        case "LIST": return typeReference(type["ofType"]).map { "[" + $0 + "]" }
        default: if case .string(let name) = type["name"] { return name } else { return nil }
        }
    }
}
