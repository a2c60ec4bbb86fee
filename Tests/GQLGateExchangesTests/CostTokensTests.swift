@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

/// `clients.rate_limit.by_cost`: buckets that give several tokens at once,
/// and the stage that takes an operation's estimated cost from them.
@Suite struct CostTokensTests {
    let manual = ManualClock()

    @Test func aBucketGivesSeveralTokensAtOnceAndRefusesWhatItCannotGive() {
        let limiter = RateLimiter(requestsPerSecond: 1, burst: 10, clock: manual.clock)
        let first = limiter.take("a", tokens: 4)
        #expect(first.allowed && first.remaining == 6)
        #expect(limiter.take("a", tokens: 6).allowed)
        let refused = limiter.take("a", tokens: 3)
        #expect(!refused.allowed)
        #expect(refused.retryAfter == .seconds(3))
        manual.advance(by: .seconds(3))
        #expect(limiter.take("a", tokens: 3).allowed)
    }

    @Test func moreTokensThanTheBurstTakeTheWholeBucket() {
        let limiter = RateLimiter(requestsPerSecond: 1, burst: 5, clock: manual.clock)
        let whole = limiter.take("a", tokens: 50)
        #expect(whole.allowed && whole.remaining == 0)
        #expect(!limiter.take("a").allowed)
    }

    @Test func theFleetsBucketGivesSeveralTokensAtOnce() {
        let limiter = FleetRateLimiter(settings: .init(requestsPerSecond: 1, burst: 10, partition: "key"), store: MemorySharedStore(clock: manual),
                                       clock: manual.clock)
        #expect(limiter.take("a", tokens: 7).allowed)
        #expect(!limiter.take("a", tokens: 4).allowed)
        #expect(limiter.take("a", tokens: 3).allowed)
        #expect(!limiter.take("a").allowed)
    }

    /// The rate limit stage and the cost stage over one bucket, as the gateway places them.
    private func run(_ cost: Double, through stages: (RateLimitExchange, CostRateLimitExchange)) throws -> Bool {
        var operation = Operation(request: GraphQLRequest(query: "{ a }"), clientTransport: .httpPost, headers: [:], requestID: "r")
        do {
            _ = try stages.0.decide(&operation)
            operation.estimatedCost = cost
            _ = try stages.1.decide(&operation)
            return true
        } catch let error as GatewayError where error.code == "RATE_LIMITED" {
            return false
        }
    }

    @Test func anOperationTakesItsEstimatedCostRoundedUp() throws {
        let limiter = RateLimiter(requestsPerSecond: 0.001, burst: 10, clock: manual.clock)
        let stages = (RateLimitExchange(limiter: limiter, partition: .global), CostRateLimitExchange(limiter: limiter, partition: .global))
        // 3 + 3 + 3 = 9 of 10; the next costs 2.5 → 3: refused (its first token was taken, 0 left).
        #expect(try [3, 3, 3, 2.5].map { try run($0, through: stages) } == [true, true, true, false])
        // A cost of 0 still takes the rate limit's one token.
        let fresh = RateLimiter(requestsPerSecond: 0.001, burst: 2, clock: manual.clock)
        let free = (RateLimitExchange(limiter: fresh, partition: .global), CostRateLimitExchange(limiter: fresh, partition: .global))
        #expect(try [0, 0, 0].map { try run($0, through: free) } == [true, true, false])
    }

    @Test func anOperationCostingMoreThanTheBurstRunsOnAFullBucket() throws {
        let limiter = RateLimiter(requestsPerSecond: 0.001, burst: 10, clock: manual.clock)
        let stages = (RateLimitExchange(limiter: limiter, partition: .global), CostRateLimitExchange(limiter: limiter, partition: .global))
        #expect(try run(500, through: stages))
        #expect(try !run(1, through: stages))
    }
}
