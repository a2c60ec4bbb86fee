package import GQLGatePipeline

extension EntitySchema {
    /// The introspection query that `init(introspection:)` reads: root types,
    /// and for every type its kind, fields (with their argument names and
    /// wrapped types) and possible types.
    package static let introspectionQuery = """
        query GQLGateEntitySchema { __schema { queryType { name } mutationType { name } subscriptionType { name } \
        types { kind name possibleTypes { name } fields(includeDeprecated: true) { name args { name } \
        type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } } }
        """

    /// Reads the `data` of an answer to `introspectionQuery`; nil when it has no `__schema` with a query type.
    package convenience init?(introspection data: JSONValue) {
        guard let schema = data["__schema"], case .string(let queryType) = schema["queryType"]?["name"],
              case .array(let types) = schema["types"]
        else { return nil }
        var rootTypes: [OperationKind: String] = [.query: queryType]
        if case .string(let name) = schema["mutationType"]?["name"] { rootTypes[.mutation] = name }
        if case .string(let name) = schema["subscriptionType"]?["name"] { rootTypes[.subscription] = name }
        var fieldTypes: [String: [String: String]] = [:]
        var identified: Set<String> = []
        var possible: [String: [String]] = [:]
        for type in types {
            guard case .string(let name) = type["name"], case .string(let kind) = type["kind"],
                  ["OBJECT", "INTERFACE", "UNION"].contains(kind)
            else { continue }
            if case .array(let members) = type["possibleTypes"] {
                possible[name] = members.compactMap { if case .string(let member) = $0["name"] { member } else { nil } }
            }
            guard case .array(let fields) = type["fields"] else { continue }
            var named: [String: String] = [:]
            for field in fields {
                guard case .string(let fieldName) = field["name"], let fieldType = field["type"],
                      let namedType = Self.namedType(fieldType)
                else { continue }
                named[fieldName] = namedType
                if fieldName == "id", Self.isNonNullID(fieldType), field["args"] == .array([]) { identified.insert(name) }
            }
            fieldTypes[name] = named
        }
        self.init(rootTypes: rootTypes, fieldTypes: fieldTypes, identifiedTypes: identified, possibleTypes: possible)
    }

    /// The innermost `name` of a wrapped introspection type.
    private static func namedType(_ type: JSONValue) -> String? {
        var current = type
        while true {
            if case .string(let name) = current["name"] { return name }
            guard let inner = current["ofType"], inner.isObject else { return nil }
            current = inner
        }
    }

    /// Whether the type is `ID!`: the one wrapping the gateway's added `id`
    /// selections all share, so they always merge.
    private static func isNonNullID(_ type: JSONValue) -> Bool {
        type["kind"] == .string("NON_NULL") && type["ofType"]?["kind"] == .string("SCALAR") && type["ofType"]?["name"] == .string("ID")
    }
}
