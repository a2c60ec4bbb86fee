import GQLGatePipeline
import Testing

/// `kind name` of an operation (`anonymous` without a name).
private func summary(_ operation: DocumentOperation) -> String {
    "\(operation.kind.rawValue) \(operation.name ?? "anonymous")"
}

/// The operation `name` selects in `query` (as `kind name`), or the error it throws.
private func select(_ query: String, named name: String? = nil) throws -> Result<String, GatewayError> {
    let document = try DocumentCache().analyse(query)
    do {
        return .success(summary(try document.selectOperation(named: name)))
    } catch {
        return .failure(error)
    }
}

@Suite struct AnalysedDocumentTests {
    @Test func listsOperationsInOrderWithoutFragments() throws {
        let document = try DocumentCache().analyse("""
            query Q { a ...F }
            fragment F on Query { b }
            mutation M { c }
            subscription { d }
            { e }
            """)
        #expect(document.operations.map(summary) == ["query Q", "mutation M", "subscription anonymous", "query anonymous"])
        #expect(document.operations[0] == document.operations[0])
        #expect(document.operations[2] != document.operations[3])
    }

    @Test func singleAnonymousOperationIsSelected() throws {
        #expect(try select("{ hello }") == .success("query anonymous"))
        #expect(try select("query { hello }") == .success("query anonymous"))
    }

    @Test func singleNamedOperationIsSelectedWithOrWithoutItsName() throws {
        #expect(try select("mutation Add { add }") == .success("mutation Add"))
        #expect(try select("mutation Add { add }", named: "Add") == .success("mutation Add"))
    }

    @Test(arguments: [("query", OperationKind.query), ("mutation", .mutation), ("subscription", .subscription)])
    func kinds(keyword: String, kind: OperationKind) throws {
        #expect(try DocumentCache().analyse("\(keyword) Op { field }").selectOperation(named: "Op").kind == kind)
    }

    @Test func namedOperationIsChosenAmongSeveral() throws {
        let text = "query A { a } mutation B { b } subscription C { c }"
        #expect(try select(text, named: "A") == .success("query A"))
        #expect(try select(text, named: "B") == .success("mutation B"))
        #expect(try select(text, named: "C") == .success("subscription C"))
    }

    @Test func unknownNameIsBadRequestNamingIt() throws {
        let error = try select("query A { a } query B { b }", named: "Nope")
        #expect(error == .failure(.operationNotDetermined("Unknown operation named \"Nope\".")))
        #expect(try select("{ a }", named: "A") == .failure(.operationNotDetermined("Unknown operation named \"A\".")))
    }

    @Test func severalOperationsAndNoNameIsBadRequest() throws {
        guard case .failure(let error) = try select("query A { a } query B { b }") else {
            Issue.record("an operation was chosen")
            return
        }
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.isGraphQLRequestError)
        #expect(error.message.contains("operationName"))
    }

    @Test func fragmentsOnlyIsBadRequest() throws {
        guard case .failure(let error) = try select("fragment F on Query { a }") else {
            Issue.record("an operation was chosen")
            return
        }
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.isGraphQLRequestError)
        #expect(error.message.contains("no operation"))
    }
}

private enum LengthMemo: DocumentMemo {
    typealias Value = Int
}

private enum OtherMemo: DocumentMemo {
    typealias Value = Int
}

/// What a stage keeps with a document: derived once per slot, again only when no longer current.
@Suite struct DocumentMemoTests {
    @Test func eachSlotIsDerivedOnceUntilItsValueIsNoLongerCurrent() throws {
        let document = try DocumentCache().analyse("{ hello }")
        var derivations = 0
        func length(accepting current: Bool = true) -> Int {
            document.memoized(LengthMemo.self, isCurrent: { _ in current }) {
                derivations += 1
                return document.queryText.count
            }
        }
        #expect(length() == 9)
        #expect(length() == 9)
        #expect(derivations == 1)
        #expect(document.memoized(OtherMemo.self) { 7 } == 7)
        #expect(length(accepting: false) == 9)
        #expect(derivations == 2)
        #expect(document.memoized(OtherMemo.self) { 8 } == 7)
    }
}
