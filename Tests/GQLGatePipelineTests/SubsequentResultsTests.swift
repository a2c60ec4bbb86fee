@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

/// Results handed out one by one from `bodies`, then nil, or `error` in place of the nil.
private func results(_ bodies: [String], failingWith error: (any Error)? = nil) -> SubsequentResults {
    let left = Lock(bodies)
    return SubsequentResults {
        if let body = left.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return Bytes(body) }
        if let error { throw error }
        return nil
    }
}

private struct Boom: Error {}

@Suite struct SubsequentResultsTests {
    @Test func whenOverRunsOnceAfterTheLast() async throws {
        let runs = Lock(0)
        let watched = results(["a", "b"]).whenOver { runs.withLock { $0 += 1 } }
        #expect(try await watched.next()?.string == "a")
        #expect(try await watched.next()?.string == "b")
        #expect(runs.withLock { $0 } == 0)
        #expect(try await watched.next() == nil)
        #expect(try await watched.next() == nil)
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func whenOverRunsWhenTheyFail() async throws {
        let runs = Lock(0)
        let watched = results(["a"], failingWith: Boom()).whenOver { runs.withLock { $0 += 1 } }
        _ = try await watched.next()
        await #expect(throws: Boom.self) { try await watched.next() }
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func whenOverRunsWhenTheyAreDroppedBeforeTheirEnd() async throws {
        let runs = Lock(0)
        var watched: SubsequentResults? = results(["a", "b"]).whenOver { runs.withLock { $0 += 1 } }
        _ = try await watched?.next()
        #expect(runs.withLock { $0 } == 0)
        watched = nil
        #expect(runs.withLock { $0 } == 1)
    }
}
