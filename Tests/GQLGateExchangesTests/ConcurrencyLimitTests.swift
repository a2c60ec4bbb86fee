@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

@Suite struct ConcurrencyLimitTests {
    /// Waits until `condition` holds, yielding between looks.
    private func waitUntil(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test func placesUpToTheLimitAreFreeAndTheRestWaitOldestFirst() async throws {
        let limit = ConcurrencyLimit(limit: 2, queueTimeout: .seconds(60))
        try await limit.acquire()
        try await limit.acquire()
        #expect(limit.holders == 2)
        let order = Recorded<Int>()
        var waiters: [Task<Void, any Error>] = []
        for index in 0..<3 {
            waiters.append(Task {
                try await limit.acquire()
                order.add(index)
            })
            await waitUntil { limit.waiters == index + 1 }
        }
        for expected in 1...3 {
            limit.release()
            await waitUntil { order.all.count == expected }
        }
        #expect(order.all == [0, 1, 2])
        #expect(limit.holders == 2)
        for waiter in waiters { try await waiter.value }
    }

    @Test func aWaiterPastTheQueueTimeoutIsAnsweredOverloaded() async throws {
        let limit = ConcurrencyLimit(limit: 1, queueTimeout: .milliseconds(20))
        try await limit.acquire()
        await #expect(throws: GatewayError.upstreamOverloaded(retryAfter: .seconds(1))) { try await limit.acquire() }
        #expect(limit.waiters == 0)
        limit.release()
        #expect(limit.holders == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueueAtOnce() async throws {
        let limit = ConcurrencyLimit(limit: 1, queueTimeout: .seconds(60))
        try await limit.acquire()
        let leaving = Task { try await limit.acquire() }
        await waitUntil { limit.waiters == 1 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(limit.waiters == 0)
        let next = Task { try await limit.acquire() }
        await waitUntil { limit.waiters == 1 }
        limit.release()
        try await next.value
        #expect(limit.holders == 1)
    }

    @Test func aTaskCancelledBeforeItWaitsDoesNotTakeAPlace() async throws {
        let limit = ConcurrencyLimit(limit: 1, queueTimeout: .seconds(60))
        try await limit.acquire()
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await limit.acquire()
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(limit.waiters == 0)
    }
}

@Suite struct UpstreamConcurrencyExchangeTests {
    @Test func eachAttemptHoldsAPlaceUntilItsAnswerAndShedsAreCounted() async throws {
        let limit = ConcurrencyLimit(limit: 1, queueTimeout: .milliseconds(10))
        let facts = RecordedFacts()
        let exchange = UpstreamConcurrencyExchange(limit: limit)
        let query = try analysedOperation(.query)
        let seen = Recorded<Int>()
        _ = try await exchange.handle(query) { _ in
            seen.add(limit.holders)
            return .single(GraphQLResponse(status: 200, headers: [:], body: Bytes("{}"), source: .upstream))
        }
        #expect(seen.all == [1])
        #expect(limit.holders == 0)
        try await limit.acquire()
        let traced = facts.tracking(query)
        await #expect(throws: GatewayError.self) { _ = try await exchange.handle(traced, next: RecordingNext().next) }
        #expect(facts.sheds(.overloaded) == 1)
        #expect(traced.facts?.snapshot.shed == .overloaded)
    }

    @Test func anIncrementalAnswerHoldsItsPlaceUntilItsLastPart() async throws {
        let limit = ConcurrencyLimit(limit: 1, queueTimeout: .milliseconds(10))
        let left = Lock(["{\"hasNext\":false}"])
        let answer = try await UpstreamConcurrencyExchange(limit: limit).handle(try analysedOperation(.query)) { _ in
            var response = GraphQLResponse(status: 200, headers: [:], body: Bytes("{\"hasNext\":true}"), source: .upstream)
            response.subsequentResults = SubsequentResults { left.withLock { $0.isEmpty ? nil : Bytes($0.removeFirst()) } }
            return .single(response)
        }.first()
        let rest = try #require(answer?.subsequentResults)
        #expect(limit.holders == 1)
        #expect(try await rest.next()?.string == "{\"hasNext\":false}")
        #expect(limit.holders == 1)
        #expect(try await rest.next() == nil)
        #expect(limit.holders == 0)
    }

    @Test func subscriptionsTakeNoPlace() async throws {
        let limit = ConcurrencyLimit(limit: 1, queueTimeout: .milliseconds(10))
        try await limit.acquire()
        let upstream = RecordingNext()
        _ = try await UpstreamConcurrencyExchange(limit: limit).handle(try analysedOperation(.subscription), next: upstream.next)
        #expect(upstream.operations.count == 1)
    }
}
