import Testing
@testable import GQLGateConfig

@Suite struct RetryConfigTests {
    @Test func defaults() {
        let retry = GatewayConfig().retry
        #expect(retry.maxAttempts == 3)
        #expect(retry.baseDelay == .milliseconds(100))
        #expect(retry.maxDelay == .seconds(2))
        #expect(retry.onStatus == [429, 502, 503, 504])
        #expect(retry.maxRetryAfter == .seconds(5))
        #expect(retry.budget == 0.2)
        #expect(!retry.idempotentMutations)
    }

    @Test func readsEveryKey() throws {
        let retry = try load("""
            retry:
              max_attempts: 5
              base_delay: 50ms
              max_delay: 1s
              on_status: [503]
              max_retry_after: 0s
              budget: 0.5
              idempotent_mutations: true
            """).retry
        #expect(retry.maxAttempts == 5)
        #expect(retry.baseDelay == .milliseconds(50))
        #expect(retry.maxDelay == .seconds(1))
        #expect(retry.onStatus == [503])
        #expect(retry.maxRetryAfter == .zero)
        #expect(retry.budget == 0.5)
        #expect(retry.idempotentMutations)
    }

    @Test func rejectsBadValues() {
        #expect(loadError("retry: {budget: lots}") == #"retry.budget: "lots" is not valid: expected a number from 0 to 1"#)
        #expect(loadError("retry: {on_status: [abc]}") == #"retry.on_status[0]: "abc" is not valid: expected an integer from 100 to 599"#)
        #expect(loadError("retry: {idempotent_mutations: 1}") == #"retry.idempotent_mutations: "1" is not valid: expected true or false"#)
    }
}
