@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

@Suite struct RateLimiterTests {
    let manual = ManualClock()

    @Test func aFullBucketLetsTheBurstThroughThenRefusesUntilATokenIsBack() {
        let limiter = RateLimiter(requestsPerSecond: 2, burst: 3, clock: manual.clock)
        let allowed = (0..<3).map { _ in limiter.take("a") }
        #expect(allowed.map(\.allowed) == [true, true, true])
        #expect(allowed.map(\.remaining) == [2, 1, 0])
        let refused = limiter.take("a")
        #expect(!refused.allowed)
        #expect(refused.retryAfter == .milliseconds(500))
        #expect(refused.reset == .milliseconds(1500))
        manual.advance(by: .milliseconds(499))
        #expect(!limiter.take("a").allowed)
        manual.advance(by: .milliseconds(1))
        let refilled = limiter.take("a")
        #expect(refilled.allowed)
        #expect(refilled.remaining == 0)
    }

    @Test func aBucketRefillsAtTheRateUpToTheBurstAndNoFurther() {
        let limiter = RateLimiter(requestsPerSecond: 10, burst: 5, clock: manual.clock)
        for _ in 0..<5 { _ = limiter.take("a") }
        manual.advance(by: .milliseconds(200))
        #expect(limiter.take("a").remaining == 1)  // two tokens back, one taken
        manual.advance(by: .seconds(60))
        let after = (0..<6).map { _ in limiter.take("a").allowed }
        #expect(after == [true, true, true, true, true, false])
    }

    @Test func extremeRatesAndBurstsNeitherOverflowNorTrap() {
        let slow = RateLimiter(requestsPerSecond: 1e-9, burst: 1_000_000_000, clock: manual.clock)
        #expect(slow.take("a").allowed)
        let fast = RateLimiter(requestsPerSecond: 1e9, burst: 1, clock: manual.clock)
        #expect(fast.take("a").allowed)
        #expect(!fast.take("a").allowed)
        manual.advance(by: .nanoseconds(1))
        #expect(fast.take("a").allowed)
    }

    @Test func bucketsAreSeparatePerKey() {
        let limiter = RateLimiter(requestsPerSecond: 1, burst: 1, clock: manual.clock)
        #expect(limiter.take("a").allowed)
        #expect(!limiter.take("a").allowed)
        #expect(limiter.take("b").allowed)
    }

    @Test func theWindowIsTheTimeAnEmptyBucketTakesToFill() {
        #expect(RateLimiter(requestsPerSecond: 100, burst: 100).windowSeconds == 1)
        #expect(RateLimiter(requestsPerSecond: 10, burst: 50).windowSeconds == 5)
        #expect(RateLimiter(requestsPerSecond: 3, burst: 2).windowSeconds == 1)
    }

    @Test func aHundredThousandDistinctKeysStayWithinTheTableBoundAndIdleBucketsGoAway() {
        let tableBytes = 1 << 20
        let limiter = RateLimiter(requestsPerSecond: 1, burst: 1, maxTableBytes: tableBytes, clock: manual.clock)
        for index in 0..<100_000 { _ = limiter.take("client-\(index)") }
        let perBucket = "client-99999".utf8.count + 96
        #expect(limiter.count <= tableBytes / ("client-0".utf8.count + 96))
        #expect(limiter.count >= tableBytes / perBucket - 1)
        // A second later every bucket is full again: each new key drops idle ones, the table shrinks.
        manual.advance(by: .seconds(1))
        let before = limiter.count
        for index in 0..<1_000 { _ = limiter.take("late-\(index)") }
        #expect(limiter.count <= before - 2_000)
        // The most recent keys are still limited.
        #expect(!limiter.take("late-999").allowed)
    }
}

@Suite struct RateLimitStageTests {
    let manual = ManualClock()

    private func refusal(_ stage: RateLimitExchange, _ operation: Operation) -> GatewayError? {
        var operation = operation
        do {
            _ = try stage.decide(&operation)
            return nil
        } catch {
            return error as? GatewayError
        }
    }

    @Test func overTheLimitIsA429WithRetryAfterAndTheRateLimitFields() throws {
        let stage = RateLimitExchange(limiter: RateLimiter(requestsPerSecond: 2, burst: 4, clock: manual.clock), partition: .global)
        for _ in 0..<4 { #expect(refusal(stage, operation("{ a }")) == nil) }
        let error = try #require(refusal(stage, operation("{ a }")))
        #expect(error.status == 429)
        #expect(error.code == "RATE_LIMITED")
        #expect(error.headers["Retry-After"] == "1")
        #expect(error.headers["RateLimit-Policy"] == "\"default\";q=4;w=2")
        #expect(error.headers["RateLimit"] == "\"default\";r=0;t=2")
    }

    @Test func byHeaderEachValueHasItsOwnBucketAndNoHeaderSharesOne() {
        let stage = RateLimitExchange(limiter: RateLimiter(requestsPerSecond: 1, burst: 1, clock: manual.clock), partition: .header("x-tenant"))
        #expect(refusal(stage, operation("{ a }", headers: ["X-Tenant": "red"])) == nil)
        #expect(refusal(stage, operation("{ a }", headers: ["X-Tenant": "red"]))?.code == "RATE_LIMITED")
        #expect(refusal(stage, operation("{ a }", headers: ["X-Tenant": "blue"])) == nil)
        #expect(refusal(stage, operation("{ a }")) == nil)
        #expect(refusal(stage, operation("{ a }"))?.code == "RATE_LIMITED")
    }

    @Test func byClientTheClientIDChoosesTheBucket() {
        let stage = RateLimitExchange(limiter: RateLimiter(requestsPerSecond: 1, burst: 1, clock: manual.clock), partition: .client)
        var first = operation("{ a }")
        first.clientID = "key-1"
        var second = operation("{ a }")
        second.clientID = "key-2"
        #expect(refusal(stage, first) == nil)
        #expect(refusal(stage, first)?.code == "RATE_LIMITED")
        #expect(refusal(stage, second) == nil)
    }

    @Test func aRefusalIsNotedInTheTraceAndCounted() {
        let facts = RecordedFacts()
        let stage = RateLimitExchange(limiter: RateLimiter(requestsPerSecond: 1, burst: 1, clock: manual.clock), partition: .global)
        let limited = facts.tracking(Operation(request: GraphQLRequest(query: "{ a }"), clientTransport: .httpPost, headers: [:], requestID: "r"))
        _ = refusal(stage, limited)
        #expect(limited.facts?.snapshot.shed == nil)
        _ = refusal(stage, limited)
        #expect(limited.facts?.snapshot.shed == .rateLimited)
        #expect(facts.sheds(.rateLimited) == 1)
    }
}
