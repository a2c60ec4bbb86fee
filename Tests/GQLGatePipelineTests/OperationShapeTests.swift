import GQLGatePipeline
import Testing

/// Depth and alias counts with fragments expanded, as the query limits see them.
@Suite struct OperationShapeTests {
    private func shape(_ query: String, operation: String? = nil) throws -> OperationShape {
        try DocumentCache().analyse(query).selectOperation(named: operation).shape
    }

    @Test(arguments: [
        ("{ a }", 1),
        ("{ __typename }", 1),
        ("{ a { b { c } } d }", 3),
        ("{ a { ... on T { b { c { d } } } } }", 4),
        ("query { a { ...F } } fragment F on T { b { c } }", 3),
        ("query { a { ...F } } fragment F on T { b { ...G } } fragment G on T { c { d } }", 4),
    ] as [(String, Int)])
    func depthCountsFieldNestingWithFragmentsExpanded(query: String, depth: Int) throws {
        #expect(try shape(query).depth == depth)
    }

    @Test func aliasesAreCountedEveryTimeTheirFragmentIsSpread() throws {
        let query = """
            query { x: a { ...F } y: a { ...F } z: a { ...F } }
            fragment F on T { p: b q: b }
            """
        #expect(try shape(query).aliases == 3 + 3 * 2)
    }

    @Test func eachOperationHasItsOwnShape() throws {
        let query = "query Shallow { a } query Deep { a { b { c } } } query Aliased { one: a two: a }"
        #expect(try shape(query, operation: "Shallow") == OperationShape(depth: 1, aliases: 0))
        #expect(try shape(query, operation: "Deep") == OperationShape(depth: 3, aliases: 0))
        #expect(try shape(query, operation: "Aliased") == OperationShape(depth: 1, aliases: 2))
    }

    @Test func fragmentCyclesAreRefusedNamingTheCycle() {
        #expect {
            _ = try DocumentCache().analyse("query { ...A } fragment A on Q { ...B } fragment B on Q { a { ...A } }")
        } throws: { error in
            guard let error = error as? GatewayError else { return false }
            return error.code == "QUERY_TOO_COMPLEX" && error.status == 400 && error.message.contains("A → B → A")
        }
    }

    @Test func exponentialFragmentExpansionSaturatesInsteadOfOverflowing() throws {
        var definitions = "fragment F0 on T { a: x b: x }\n"
        for level in 1...70 {
            definitions += "fragment F\(level) on T { ...F\(level - 1) ...F\(level - 1) }\n"
        }
        let measured = try shape("query { ...F70 }\n" + definitions)
        #expect(measured.aliases == Int.max)
        #expect(measured.depth == 1)
    }

    @Test func unknownFragmentsAddNothing() throws {
        #expect(try shape("{ a { ...Missing } }") == OperationShape(depth: 1, aliases: 0))
    }
    @Test(arguments: [
        ("{ a ... @defer { b } }", true),
        ("{ a { ... on T @defer(label: \"x\") { b } } }", true),
        ("{ a { ...F @defer } } fragment F on T { b }", true),
        ("{ list @stream(initialCount: 1) { b } }", true),
        ("{ a { ...F } } fragment F on T { b { c @stream } }", true),
        ("{ a ... @defer(if: false) { b } }", true),
        ("{ a ... @include(if: true) { b } }", false),
        ("{ a { b } }", false),
    ] as [(String, Bool)])
    func deferAndStreamAreFoundWithFragmentsExpanded(query: String, defers: Bool) throws {
        #expect(try shape(query).defersResults == defers)
    }

    @Test func onlyTheSelectedOperationsFragmentsCount() throws {
        let query = "query Plain { a } query Deferred { ...F } fragment F on Q { ... @defer { b } }"
        #expect(try shape(query, operation: "Plain").defersResults == false)
        #expect(try shape(query, operation: "Deferred").defersResults == true)
    }
}
