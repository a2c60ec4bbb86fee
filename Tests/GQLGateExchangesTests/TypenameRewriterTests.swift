import GQLGateExchanges
import GQLGatePipeline
import Testing

/// The rewritten text of `query` with its whitespace collapsed.
private func typenamed(_ query: String) throws -> String {
    let rewritten = try #require(DocumentCache().analyse(query).typenamed).query
    return rewritten.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

@Suite struct TypenameRewriterTests {
    @Test func everyNestedSelectionSetGetsTheAliasedTypenameButTheRootDoesNot() throws {
        #expect(try typenamed("{ hero { name friends { name } } reviews(episode: JEDI) { stars } }")
            == "{ hero { name friends { name _gqlgate_typename: __typename } _gqlgate_typename: __typename } "
            + "reviews(episode: JEDI) { stars _gqlgate_typename: __typename } }")
    }

    @Test func inlineFragmentsShareTheirSetsTypenameAndFragmentDefinitionsGetOne() throws {
        #expect(try typenamed("query Q { hero { ... on Droid { primaryFunction } ...F } } fragment F on Character { name }")
            == "query Q { hero { ... on Droid { primaryFunction } ...F _gqlgate_typename: __typename } } "
            + "fragment F on Character { name _gqlgate_typename: __typename }")
    }

    @Test func aliasesAndTheClientsOwnTypenameAreKept() throws {
        #expect(try typenamed("{ luke: hero { __typename n: name } }")
            == "{ luke: hero { __typename n: name _gqlgate_typename: __typename } }")
    }

    @Test func mutationsAreRewrittenToo() throws {
        #expect(try typenamed("mutation { createReview(episode: JEDI, review: {stars: 5}) { stars } }")
            == "mutation { createReview(episode: JEDI, review: { stars: 5 }) { stars _gqlgate_typename: __typename } }")
    }

    @Test func theAliasAvoidsNamesTheClientUses() throws {
        let document = try DocumentCache().analyse("{ hero { _gqlgate_typename: name } }")
        #expect(document.typenamed?.alias == "_gqlgate_typename1")
        #expect(document.typenamed?.query.contains("_gqlgate_typename1: __typename") == true)
    }

    @Test func scalarOnlyDocumentsAreUnchangedButForPrinting() throws {
        #expect(try typenamed("{ hello bookCount }") == "{ hello bookCount }")
    }
}

@Suite struct RootArgumentsTests {
    @Test func literalAndVariableValuesOfRootFieldsAsText() throws {
        let document = try DocumentCache().analyse("""
            query Q($e: Episode!, $n: Int) { reviews(episode: $e, first: $n) { stars } hero(episode: EMPIRE) { name(upper: true) } }
            """)
        let values = document.rootArguments(operationName: "Q", variables: .object([("e", .string("JEDI")), ("n", .integer(3))]))
        #expect(values == ["episode": ["JEDI", "EMPIRE"], "first": ["3"]])
    }

    @Test func fragmentsAtTheRootCountAndInputObjectsListsAndNullsDoNot() throws {
        let document = try DocumentCache().analyse("""
            mutation M { ...R } fragment R on Mutation { createReview(episode: JEDI, review: {stars: 5}, tags: ["a"], note: null) { stars } }
            """)
        #expect(document.rootArguments(operationName: nil, variables: nil) == ["episode": ["JEDI"]])
    }

    @Test func unknownOperationHasNone() throws {
        let document = try DocumentCache().analyse("query A { a(x: 1) } query B { b(y: 2) }")
        #expect(document.rootArguments(operationName: "C", variables: nil).isEmpty)
        #expect(document.rootArguments(operationName: "B", variables: nil) == ["y": ["2"]])
    }
}
