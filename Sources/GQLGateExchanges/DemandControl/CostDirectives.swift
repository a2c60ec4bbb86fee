import GraphQL

/// What the IBM GraphQL Cost Directives (`@cost`, `@listSize`) in an SDL
/// text say, by schema coordinate. Read from the SDL itself: a schema built
/// from it keeps no directive uses, and introspection carries none.
struct CostDirectives: Sendable {
    /// `@cost` on object, scalar and enum types, by type name.
    var types: [String: Double] = [:]
    /// `@cost` on fields, by `Type.field`.
    var fields: [String: Double] = [:]
    /// `@cost` on field arguments, by `Type.field(argument:)`.
    var arguments: [String: Double] = [:]
    /// `@cost` on input fields, by `Input.field`.
    var inputFields: [String: Double] = [:]
    /// `@listSize` on fields, by `Type.field`.
    var listSizes: [String: ListSizeRule] = [:]

    init() {}

    /// The directives used in `sdl`; none when it does not parse (the schema it makes would not load either).
    init(sdl: String) {
        guard sdl.contains("@cost") || sdl.contains("@listSize"), let document = try? parse(source: sdl) else { return }
        for definition in document.definitions {
            switch definition {
            case let object as ObjectTypeDefinition: readOutputType(object.name.value, directives: object.directives, fields: object.fields)
            case let object as TypeExtensionDefinition:
                readOutputType(object.definition.name.value, directives: object.definition.directives, fields: object.definition.fields)
            case let interface as InterfaceTypeDefinition: readOutputType(interface.name.value, directives: [], fields: interface.fields)
            case let interface as InterfaceExtensionDefinition:
                readOutputType(interface.definition.name.value, directives: [], fields: interface.definition.fields)
            case let scalar as ScalarTypeDefinition: types[scalar.name.value] = Self.weight(in: scalar.directives) ?? types[scalar.name.value]
            case let enumType as EnumTypeDefinition: types[enumType.name.value] = Self.weight(in: enumType.directives) ?? types[enumType.name.value]
            case let input as InputObjectTypeDefinition: readInputFields(input.name.value, input.fields)
            case let input as InputObjectExtensionDefinition: readInputFields(input.definition.name.value, input.definition.fields)
            default: continue
            }
        }
    }

    private mutating func readOutputType(_ name: String, directives: [Directive], fields: [FieldDefinition]) {
        if let weight = Self.weight(in: directives) { types[name] = weight }
        for field in fields {
            let coordinate = "\(name).\(field.name.value)"
            if let weight = Self.weight(in: field.directives) { self.fields[coordinate] = weight }
            if let rule = ListSizeRule(field.directives) { listSizes[coordinate] = rule }
            for argument in field.arguments {
                if let weight = Self.weight(in: argument.directives) { arguments["\(coordinate)(\(argument.name.value):)"] = weight }
            }
        }
    }

    private mutating func readInputFields(_ name: String, _ fields: [InputValueDefinition]) {
        for field in fields {
            if let weight = Self.weight(in: field.directives) { inputFields["\(name).\(field.name.value)"] = weight }
        }
    }

    /// The weight of a `@cost` among `directives`: a string holding a number
    /// (the specification's `String!`), or a number (schemas written for
    /// routers that declare `weight: Int!`).
    static func weight(in directives: [Directive]) -> Double? {
        guard let cost = directives.first(where: { $0.name.value == "cost" }),
              let value = cost.arguments.first(where: { $0.name.value == "weight" })?.value
        else { return nil }
        switch value {
        case let text as StringValue: return Double(text.value).flatMap { $0.isFinite ? $0 : nil }
        case let number as IntValue: return Double(number.value)
        case let number as FloatValue: return Double(number.value)
        default: return nil
        }
    }
}

/// One field's `@listSize`.
struct ListSizeRule: Sendable, Equatable {
    /// The list's length when no slicing argument says it.
    var assumedSize: Int?
    /// The field's arguments whose value is the list's length (the largest of those given).
    var slicingArguments: [String] = []
    /// The fields of the field's type whose lists the size applies to, instead of the field's own.
    var sizedFields: [String] = []
    var requireOneSlicingArgument = true

    /// The `@listSize` among `directives`, if any.
    init?(_ directives: [Directive]) {
        guard let listSize = directives.first(where: { $0.name.value == "listSize" }) else { return nil }
        for argument in listSize.arguments {
            switch (argument.name.value, argument.value) {
            case ("assumedSize", let number as IntValue): assumedSize = Int(number.value).map { max(0, $0) }
            case ("slicingArguments", let list as ListValue): slicingArguments = Self.strings(list)
            case ("sizedFields", let list as ListValue): sizedFields = Self.strings(list)
            case ("requireOneSlicingArgument", let flag as BooleanValue): requireOneSlicingArgument = flag.value
            default: continue
            }
        }
    }

    private static func strings(_ list: ListValue) -> [String] {
        list.values.compactMap { ($0 as? StringValue)?.value }
    }
}
