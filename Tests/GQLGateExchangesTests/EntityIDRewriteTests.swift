import GQLGateExchanges
import GQLGatePipeline
import Testing

/// A Star Wars-like schema: `Character` declares `id: ID!`, `Named` and the
/// `SearchResult` union do not, `Planet` has no `id`.
let starWarsSchema = EntitySchema(
    rootTypes: [.query: "Query", .mutation: "Mutation"],
    fieldTypes: [
        "Query": ["hero": "Character", "reviews": "Review", "search": "SearchResult", "named": "Named"],
        "Mutation": ["createReview": "Review"],
        "Character": ["id": "ID", "name": "String", "friends": "Character"],
        "Human": ["id": "ID", "name": "String", "friends": "Character", "starships": "Starship"],
        "Droid": ["id": "ID", "name": "String", "friends": "Character", "primaryFunction": "String"],
        "Starship": ["id": "ID", "name": "String"],
        "Review": ["id": "ID", "stars": "Int"],
        "Planet": ["name": "String"],
        "Named": ["name": "String"],
    ],
    identifiedTypes: ["Character", "Human", "Droid", "Starship", "Review"],
    possibleTypes: [
        "Character": ["Human", "Droid"], "Named": ["Planet", "Human", "Droid"],
        "SearchResult": ["Human", "Droid", "Starship", "Planet"],
    ])

/// The rewritten text of `query` for `starWarsSchema`, whitespace collapsed.
private func withIDs(_ query: String) throws -> String {
    let rewritten = try #require(DocumentCache().analyse(query).typenamed(schema: starWarsSchema)).query
    return rewritten.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

private let typename = "_gqlgate_typename: __typename"
private let id = "_gqlgate_id: id"

@Suite struct EntityIDRewriteTests {
    @Test func nestedFieldsOnIdentifiedTypesGetTheAliasedID() throws {
        #expect(try withIDs("{ reviews(episode: JEDI) { stars } hero { name friends { name } } }")
            == "{ reviews(episode: JEDI) { stars \(typename) \(id) } hero { name friends { name \(typename) \(id) } \(typename) \(id) } }")
    }

    @Test func fragmentDefinitionsGetTheIDOfTheirTypeCondition() throws {
        #expect(try withIDs("query Q { hero { ...H } } fragment H on Human { starships { name } }")
            == "query Q { hero { ...H \(typename) \(id) } } fragment H on Human { starships { name \(typename) \(id) } \(typename) \(id) }")
    }

    @Test func abstractTypesWithoutAnIDOfTheirOwnSelectItOnEachIdentifiedPossibleType() throws {
        #expect(try withIDs("{ named { name ... on Droid { primaryFunction friends { name } } } }")
            == "{ named { name ... on Droid { primaryFunction friends { name \(typename) \(id) } } \(typename) "
            + "... on Droid { \(id) } ... on Human { \(id) } } }")
        #expect(try withIDs("{ search { ... on Starship { name } } }")
            == "{ search { ... on Starship { name } \(typename) ... on Droid { \(id) } ... on Human { \(id) } ... on Starship { \(id) } } }")
    }

    @Test func theClientsAliasesAndOwnIDsAreKept() throws {
        #expect(try withIDs("{ r2: hero { key: id n: name } }") == "{ r2: hero { key: id n: name \(typename) \(id) } }")
    }

    @Test func typesWithoutIDAndFieldsTheSchemaDoesNotKnowGetOnlyTheTypename() throws {
        #expect(try withIDs("{ named { ... on Planet { name } } planet { name } }")
            == "{ named { ... on Planet { name } \(typename) ... on Droid { \(id) } ... on Human { \(id) } } planet { name \(typename) } }")
    }

    @Test func mutationsStartFromTheMutationType() throws {
        #expect(try withIDs("mutation { createReview(episode: JEDI) { stars } }")
            == "mutation { createReview(episode: JEDI) { stars \(typename) \(id) } }")
    }

    @Test func theIDAliasAvoidsNamesTheClientUsesAndIsNilWithoutASchema() throws {
        let document = try DocumentCache().analyse("{ hero { _gqlgate_id: name } }")
        #expect(document.typenamed(schema: starWarsSchema)?.idAlias == "_gqlgate_id1")
        #expect(document.typenamed(schema: starWarsSchema)?.query.contains("_gqlgate_id1: id") == true)
        #expect(document.typenamed(schema: nil) == document.typenamed)
        #expect(document.typenamed?.idAlias == nil)
        #expect(document.typenamed?.query.contains(": id") == false)
    }
}

@Suite struct EntitySchemaIntrospectionTests {
    /// A named or wrapped introspection type.
    private static func type(_ kind: String, _ name: String? = nil, of inner: JSONValue? = nil) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("kind", .string(kind)), ("name", name.map(JSONValue.string) ?? .null)]
        members.append(("ofType", inner ?? .null))
        return .object(members)
    }

    private static func field(_ name: String, _ type: JSONValue, args: [String] = []) -> JSONValue {
        .object([("name", .string(name)), ("args", .array(args.map { .object([("name", .string($0))]) })), ("type", type)])
    }

    private static func definition(_ kind: String, _ name: String, fields: [JSONValue]?, possible: [String]? = nil) -> JSONValue {
        .object([
            ("kind", .string(kind)), ("name", .string(name)), ("fields", fields.map(JSONValue.array) ?? .null),
            ("possibleTypes", possible.map { .array($0.map { .object([("name", .string($0))]) }) } ?? .null),
        ])
    }

    @Test func readsRootTypesFieldTypesThroughListsIdentifiedTypesAndPossibleTypes() throws {
        let nonNullID = Self.type("NON_NULL", of: Self.type("SCALAR", "ID"))
        let reviewList = Self.type("NON_NULL", of: Self.type("LIST", of: Self.type("NON_NULL", of: Self.type("OBJECT", "Review"))))
        let data = JSONValue.object([("__schema", .object([
            ("queryType", .object([("name", .string("Query"))])),
            ("mutationType", .object([("name", .string("Mutation"))])),
            ("subscriptionType", .null),
            ("types", .array([
                Self.definition("OBJECT", "Query", fields: [
                    Self.field("reviews", reviewList, args: ["episode"]), Self.field("node", Self.type("INTERFACE", "Node")),
                ]),
                Self.definition("OBJECT", "Mutation", fields: [
                    Self.field("createReview", Self.type("NON_NULL", of: Self.type("OBJECT", "Review"))),
                ]),
                Self.definition("OBJECT", "Review", fields: [Self.field("id", nonNullID), Self.field("stars", Self.type("SCALAR", "Int"))]),
                Self.definition("OBJECT", "Nullable", fields: [Self.field("id", Self.type("SCALAR", "ID"))]),
                Self.definition("OBJECT", "Versioned", fields: [Self.field("id", nonNullID, args: ["version"])]),
                Self.definition("OBJECT", "Numbered", fields: [Self.field("id", Self.type("NON_NULL", of: Self.type("SCALAR", "Int")))]),
                Self.definition("INTERFACE", "Node", fields: [Self.field("id", nonNullID)], possible: ["Review"]),
                Self.definition("UNION", "Anything", fields: nil, possible: ["Review", "Numbered"]),
                Self.definition("SCALAR", "ID", fields: nil),
            ])),
        ]))])
        let schema = try #require(EntitySchema(introspection: data))
        #expect(schema.rootTypes == [.query: "Query", .mutation: "Mutation"])
        #expect(schema.type(ofField: "reviews", on: "Query") == "Review")
        #expect(schema.type(ofField: "createReview", on: "Mutation") == "Review")
        #expect(schema.identifiedTypes == ["Review", "Node"])
        #expect(schema.idSelection(on: "Node") == .direct)
        #expect(schema.idSelection(on: "Anything") == .perType(["Review"]))
        #expect(schema.idSelection(on: "Numbered") == EntitySchema.IDSelection.none)
        #expect(schema.fieldTypes["ID"] == nil)
    }

    @Test func anAnswerWithoutASchemaIsNone() throws {
        #expect(EntitySchema(introspection: .object([("__schema", .null)])) == nil)
        #expect(EntitySchema(introspection: .null) == nil)
    }
}
