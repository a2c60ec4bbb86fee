import GQLGateCore
import GQLGatePipeline
import Testing

/// A stream that yields `bodies` and then finishes, or fails with `error`.
private func stream(_ bodies: [String], failingWith error: (any Error)? = nil) -> ResultStream {
    let (stream, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
    for body in bodies { continuation.yield(response(body)) }
    continuation.finish(throwing: error)
    return ResultStream(stream)
}

private struct Boom: Error, Equatable {}

@Suite struct ResultStreamTests {
    @Test func singleYieldsExactlyOneResult() async throws {
        let results = ResultStream.single(response(#"{"data":{}}"#, status: 201))
        #expect(try await bodies(of: results) == [#"{"data":{}}"#])
        #expect(try await results.first()?.status == 201)
    }

    @Test func streamYieldsEveryResultInOrder() async throws {
        #expect(try await bodies(of: stream(["1", "2", "3"])) == ["1", "2", "3"])
    }

    @Test func firstOfAStreamIsItsFirstResult() async throws {
        #expect(try await stream(["1", "2"]).first()?.body.string == "1")
        #expect(try await stream([]).first() == nil)
    }

    @Test func streamErrorsReachTheConsumerAfterEarlierResults() async throws {
        var seen: [String] = []
        await #expect(throws: Boom.self) {
            for try await result in stream(["1", "2"], failingWith: Boom()) { seen.append(result.body.string) }
        }
        #expect(seen == ["1", "2"])
    }

    @Test func mapTransformsASingleResult() async throws {
        let mapped: ResultStream = ResultStream.single(response("a")).map { result in
            var result = result
            result.headers.add(name: "X-Mapped", value: "1")
            return result
        }
        var results: [GraphQLResponse] = []
        for try await result in mapped { results.append(result) }
        #expect(results.map { $0.body.string } == ["a"])
        #expect(results.first?.headers["X-Mapped"] == "1")
        #expect(try await mapped.first()?.headers["X-Mapped"] == "1")
    }

    @Test func mapsComposeInOrderOnASingleResult() async throws {
        let mapped: ResultStream = ResultStream.single(response("a"))
            .map { response($0.body.string + "b") }
            .map { response($0.body.string + "c") }
        #expect(try await bodies(of: mapped) == ["abc"])
        #expect(try await mapped.first()?.body.string == "abc")
    }

    @Test func mapTransformsEveryResultOfAStream() async throws {
        let mapped: ResultStream = stream(["1", "2", "3"]).map { response("<\($0.body.string)>") }.map { response($0.body.string + "!") }
        #expect(try await bodies(of: mapped) == ["<1>!", "<2>!", "<3>!"])
    }

    @Test func firstOfAMappedStream() async throws {
        #expect(try await stream(["1", "2"]).map { response($0.body.string + "x") }.first()?.body.string == "1x")
    }

    @Test func mapErrorsPropagate() async throws {
        await #expect(throws: Boom.self) {
            _ = try await ResultStream.single(response("a")).map { _ in throw Boom() }.first()
        }
        var seen: [String] = []
        await #expect(throws: Boom.self) {
            let mapped = stream(["1", "2", "3"]).map { result in
                if result.body.string == "2" { throw Boom() }
                return result
            }
            for try await result in mapped { seen.append(result.body.string) }
        }
        #expect(seen == ["1"])
    }

    @Test func mapPassesStreamErrorsOn() async throws {
        var seen: [String] = []
        await #expect(throws: Boom.self) {
            let mapped: ResultStream = stream(["1"], failingWith: Boom()).map { $0 }
            for try await result in mapped { seen.append(result.body.string) }
        }
        #expect(seen == ["1"])
    }

    @Test func resultsArriveAsTheyAreProduced() async throws {
        let (source, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
        var iterator = ResultStream(source).map { response($0.body.string.uppercased()) }.makeAsyncIterator()
        continuation.yield(response("a"))
        #expect(try await iterator.next()?.body.string == "A")
        continuation.yield(response("b"))
        #expect(try await iterator.next()?.body.string == "B")
        continuation.finish()
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil)
    }
}
