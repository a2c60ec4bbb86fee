import GQLGatePipeline
import GraphQL

extension EntitySchema {
    /// What the response cache reads of `schema`: the same as an answer to
    /// `introspectionQuery` would give.
    convenience init(schema: GraphQLSchema) {
        var rootTypes: [OperationKind: String] = [:]
        if let query = schema.queryType { rootTypes[.query] = query.name }
        if let mutation = schema.mutationType { rootTypes[.mutation] = mutation.name }
        if let subscription = schema.subscriptionType { rootTypes[.subscription] = subscription.name }
        var fieldTypes: [String: [String: String]] = [:]
        var identified: Set<String> = []
        var possible: [String: [String]] = [:]
        for (name, type) in schema.typeMap where !name.hasPrefix("__") {
            let fields: GraphQLFieldMap?
            switch type {
            case let object as GraphQLObjectType:
                fields = try? object.fields()
            case let interface as GraphQLInterfaceType:
                fields = try? interface.fields()
                possible[name] = schema.getPossibleTypes(abstractType: interface).map(\.name)
            case let union as GraphQLUnionType:
                fields = nil
                possible[name] = schema.getPossibleTypes(abstractType: union).map(\.name)
            default:
                continue
            }
            guard let fields else { continue }
            var named: [String: String] = [:]
            for (fieldName, field) in fields {
                guard let namedType = getNamedType(type: field.type) else { continue }
                named[fieldName] = namedType.name
                if fieldName == "id", field.args.isEmpty, let nonNull = field.type as? GraphQLNonNull,
                   (nonNull.ofType as? GraphQLScalarType)?.name == "ID" {
                    identified.insert(name)
                }
            }
            fieldTypes[name] = named
        }
        self.init(rootTypes: rootTypes, fieldTypes: fieldTypes, identifiedTypes: identified, possibleTypes: possible)
    }
}
