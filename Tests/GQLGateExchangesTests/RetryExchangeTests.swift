import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import Testing

private func exchange(_ policy: RetryPolicy = RetryPolicy(), clock: SleepingClock, budget: RetryBudget = RetryBudget(ratio: 1),
                      random: @escaping @Sendable () -> Double = { 1 }) -> RetryExchange {
    RetryExchange(policy: policy, budget: budget, clock: clock.clock, sleep: clock.sleep, random: random)
}

private func run(_ exchange: RetryExchange, _ operation: Operation, _ upstream: ScriptedAttempts) async -> String {
    do {
        let answer = try await exchange.handle(operation, next: upstream.next).first()
        return "\(answer?.status ?? 0)"
    } catch let error as UpstreamFailure {
        return "failed \(error.kind)"
    } catch is CancellationError {
        return "cancelled"
    } catch {
        return "error \(error)"
    }
}

@Suite struct RetryExchangeTests {
    @Test func flakyQuerySucceedsOnItsThirdAttempt() async throws {
        let clock = SleepingClock()
        let facts = RecordedFacts()
        let upstream = ScriptedAttempts([.answer(503), .fail(.notReached), .answer(200)])
        #expect(await run(exchange(clock: clock), facts.tracking(try analysedOperation(.query)), upstream) == "200")
        #expect(upstream.calls == 3)
        let retries = facts.operationFacts.compactMap { fact -> RetryReason? in if case .retrying(let reason) = fact { reason } else { nil } }
        #expect(retries == [.status(503), .failure(.notReached)])
        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200)])
    }

    @Test func lastUpstreamAnswerReachesTheClientWhenAttemptsRunOut() async throws {
        let upstream = ScriptedAttempts([.answer(502), .answer(503), .answer(504), .answer(200)])
        #expect(await run(exchange(clock: SleepingClock()), try analysedOperation(.query), upstream) == "504")
        #expect(upstream.calls == 3)
    }

    @Test func failureWithoutAnyAnswerIsThrownAfterTheLastAttempt() async throws {
        let upstream = ScriptedAttempts([.fail(.timedOut)])
        #expect(await run(exchange(clock: SleepingClock()), try analysedOperation(.query), upstream) == "failed timedOut")
        #expect(upstream.calls == 3)
    }

    @Test func anAnswerTooLargeIsNotRetriedAndReachesTheClientAs502() async throws {
        let upstream = ScriptedAttempts([.fail(.answerTooLarge), .answer(200)])
        #expect(await run(exchange(clock: SleepingClock()), try analysedOperation(.query), upstream) == "failed answerTooLarge")
        #expect(upstream.calls == 1)
        let answer = UpstreamFailure(kind: .answerTooLarge, message: "the answer is larger than 10 bytes").gatewayError
        #expect(answer.status == 502)
        #expect(answer.code == "UPSTREAM_RESPONSE_TOO_LARGE")
    }

    @Test func statusesOutsideOnStatusAreNotRetried() async throws {
        let upstream = ScriptedAttempts([.answer(500), .answer(200)])
        #expect(await run(exchange(clock: SleepingClock()), try analysedOperation(.query), upstream) == "500")
        #expect(upstream.calls == 1)
    }

    /// Every curl failure kind and a retryable status, for mutations: only a
    /// request that never left is sent again.
    @Test(arguments: [
        (ScriptedAttempts.Step.fail(.notReached), 2),
        (.fail(.timedOut), 1),
        (.fail(.failedAfterSend), 1),
        (.answer(503), 1),
        (.answer(429), 1),
    ])
    func mutationIsRetriedOnlyWhenItNeverLeft(first: ScriptedAttempts.Step, expectedCalls: Int) async throws {
        let upstream = ScriptedAttempts([first, .answer(200)])
        _ = await run(exchange(clock: SleepingClock()), try analysedOperation(.mutation), upstream)
        #expect(upstream.calls == expectedCalls)
    }

    @Test func idempotentMutationsAreRetriedLikeQueries() async throws {
        let upstream = ScriptedAttempts([.answer(503), .fail(.failedAfterSend), .answer(200)])
        let policy = RetryPolicy(idempotentMutations: true)
        #expect(await run(exchange(policy, clock: SleepingClock()), try analysedOperation(.mutation), upstream) == "200")
        #expect(upstream.calls == 3)
    }

    @Test func cancelledTransferIsNotRetried() async throws {
        let upstream = ScriptedAttempts([.cancelled, .answer(200)])
        #expect(await run(exchange(clock: SleepingClock()), try analysedOperation(.query), upstream) == "cancelled")
        #expect(upstream.calls == 1)
    }

    @Test func retryAfterSecondsIsWaitedForExactly() async throws {
        let clock = SleepingClock()
        let upstream = ScriptedAttempts([.answer(429, ["Retry-After": "2"]), .answer(200)])
        #expect(await run(exchange(clock: clock), try analysedOperation(.query), upstream) == "200")
        #expect(clock.sleeps == [.seconds(2)])
    }

    @Test func retryAfterLongerThanMaxRetryAfterMeansNoRetry() async throws {
        let clock = SleepingClock()
        let upstream = ScriptedAttempts([.answer(503, ["Retry-After": "6"]), .answer(200)])
        #expect(await run(exchange(clock: clock), try analysedOperation(.query), upstream) == "503")
        #expect(upstream.calls == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func retryThatWouldPassTheDeadlineIsNotStarted() async throws {
        let clock = SleepingClock()
        let policy = RetryPolicy(maxAttempts: 5, deadline: .seconds(3))
        let upstream = ScriptedAttempts([.answer(503, ["Retry-After": "2"])])
        #expect(await run(exchange(policy, clock: clock), try analysedOperation(.query), upstream) == "503")
        #expect(upstream.calls == 2)
    }

    @Test func operationCarriesTheDeadlineToTheTransport() async throws {
        let clock = SleepingClock()
        let start = clock.now
        let upstream = ScriptedAttempts([.answer(200)])
        _ = await run(exchange(RetryPolicy(deadline: .seconds(7)), clock: clock), try analysedOperation(.query), upstream)
        #expect(upstream.operations.first?.deadline == start + 7_000_000_000)
    }

    @Test func spentBudgetStopsRetries() async throws {
        let clock = SleepingClock()
        let budget = RetryBudget(ratio: 0)
        let upstream = ScriptedAttempts([.answer(503)])
        let retrying = exchange(RetryPolicy(maxAttempts: 10, maxDelay: .milliseconds(1)), clock: clock, budget: budget)
        #expect(await run(retrying, try analysedOperation(.query), upstream) == "503")
        #expect(upstream.calls == 4, "3 retries are always allowed, then the budget is spent")
    }

    @Test func subscriptionsPassThroughUntouched() async throws {
        let upstream = ScriptedAttempts([.answer(503), .answer(200)])
        #expect(await run(exchange(clock: SleepingClock()), try analysedOperation(.subscription), upstream) == "503")
        #expect(upstream.calls == 1)
        #expect(upstream.operations.first?.deadline == nil)
    }
}

@Suite struct RetryPolicyTests {
    @Test func fullJitterStaysWithinBaseTimesTwoToTheNCappedByMaxDelay() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(2))
        let ceilings = (0..<8).map { n in policy.backoff(random: { 1 }).delay(forAttempt: n) }
        #expect(ceilings == [100, 200, 400, 800, 1600, 2000, 2000, 2000].map { Duration.milliseconds($0) })
        #expect(policy.backoff(random: { 0 }).delay(forAttempt: 3) == .zero)
        #expect(policy.backoff(random: { 1 }).delay(forAttempt: 200) == .seconds(2), "no overflow for large n")
    }

    @Test func jitterIsDrawnFromTheWholeRange() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(2))
        let backoff = policy.backoff()
        let delays = (0..<200).map { _ in backoff.delay(forAttempt: 1) }
        #expect(delays.allSatisfy { $0 >= .zero && $0 <= .milliseconds(200) })
        #expect(delays.contains { $0 < .milliseconds(50) } && delays.contains { $0 > .milliseconds(150) })
    }
}

@Suite struct RetryAfterTests {
    private let now: Int64 = 784_111_777   // Sun, 06 Nov 1994 08:49:37 GMT

    @Test func readsDelaySeconds() {
        #expect(RetryAfter.delay("3", nowEpochSeconds: now) == .seconds(3))
        #expect(RetryAfter.delay(" 120 ", nowEpochSeconds: now) == .seconds(120))
    }

    @Test func readsTheThreeHTTPDateForms() {
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:41 GMT", nowEpochSeconds: now) == .seconds(4))
        #expect(RetryAfter.delay("Sunday, 06-Nov-94 08:49:47 GMT", nowEpochSeconds: now) == .seconds(10))
        #expect(RetryAfter.delay("Sun Nov  6 08:50:37 1994", nowEpochSeconds: now) == .seconds(60))
    }

    @Test func pastDateIsNoWait() {
        #expect(RetryAfter.delay("Sat, 05 Nov 1994 08:49:37 GMT", nowEpochSeconds: now) == .zero)
    }

    @Test(arguments: ["", "soon", "-1", "1.5", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"])
    func unreadableValuesAreNil(_ value: String) {
        #expect(RetryAfter.delay(value, nowEpochSeconds: now) == nil)
    }
}

@Suite struct RetryBudgetTests {
    private let second: UInt64 = 1_000_000_000

    @Test func threeRetriesAreAlwaysAllowed() {
        let budget = RetryBudget(ratio: 0.2)
        #expect((0..<4).map { _ in budget.tryRetry(now: 50 * second) } == [true, true, true, false])
    }

    @Test func retriesFollowTheShareOfRequestsInTheWindow() {
        let budget = RetryBudget(ratio: 0.2)
        for i in 0..<100 { budget.recordRequest(now: 50 * second + UInt64(i) * second / 20) }
        let granted = (0..<30).filter { _ in budget.tryRetry(now: 55 * second) }.count
        #expect(granted == 20)
    }

    @Test func windowSlidesAfterTenSeconds() {
        let budget = RetryBudget(ratio: 0)
        #expect((0..<3).allSatisfy { _ in budget.tryRetry(now: 50 * second) })
        #expect(!budget.tryRetry(now: 59 * second))
        #expect(budget.tryRetry(now: 60 * second))
    }
}
