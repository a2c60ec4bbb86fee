@testable import GQLGateDemo
import GraphQL
import Testing

/// The `reviewAdded` subscription of the demo schema, run directly.
@Suite(.timeLimit(.minutes(1))) struct DemoSubscriptionTests {
    private let schema: DemoSchema

    init() throws {
        schema = try DemoSchema()
    }

    private func subscribe(_ query: String, variables: [String: Map] = [:]) async throws -> AsyncThrowingStream<GraphQLResult, any Error> {
        let operation = await schema.start(GraphQLRequest(query: query, variables: variables))
        guard case .stream(let results) = operation else {
            Issue.record("expected a subscription stream, got \(operation)")
            throw CancellationError()
        }
        return results
    }

    private func createReview(_ episode: String, stars: Int) async {
        let outcome = await schema.execute(GraphQLRequest(
            query: "mutation { createReview(episode: \(episode), review: { stars: \(stars) }) { id } }"))
        guard case .executed(let result) = outcome, result.errors.isEmpty else {
            Issue.record("createReview failed: \(outcome)")
            return
        }
    }

    @Test func reviewAddedYieldsTheReviewsCreatedForItsEpisode() async throws {
        let results = try await subscribe(
            "subscription ($episode: Episode) { reviewAdded(episode: $episode) { id episode stars } }", variables: ["episode": "JEDI"])
        #expect(schema.reviews.observerCount == 1)
        await createReview("EMPIRE", stars: 5)
        await createReview("JEDI", stars: 4)
        await createReview("JEDI", stars: 1)
        var iterator = results.makeAsyncIterator()
        #expect(try await iterator.next() == GraphQLResult(data: ["reviewAdded": ["id": "2", "episode": "JEDI", "stars": 4]]))
        #expect(try await iterator.next() == GraphQLResult(data: ["reviewAdded": ["id": "3", "episode": "JEDI", "stars": 1]]))
    }

    @Test func reviewAddedWithoutEpisodeFollowsEveryFilm() async throws {
        let results = try await subscribe("subscription { reviewAdded { id episode } }")
        await createReview("NEWHOPE", stars: 3)
        await createReview("JEDI", stars: 2)
        var iterator = results.makeAsyncIterator()
        #expect(try await iterator.next() == GraphQLResult(data: ["reviewAdded": ["id": "1", "episode": "NEWHOPE"]]))
        #expect(try await iterator.next() == GraphQLResult(data: ["reviewAdded": ["id": "2", "episode": "JEDI"]]))
    }

    @Test func droppingTheStreamStopsFollowingTheStore() async throws {
        do {
            let results = try await subscribe("subscription { reviewAdded { id } }")
            await createReview("JEDI", stars: 5)
            var iterator = results.makeAsyncIterator()
            #expect(try await iterator.next() != nil)
        }
        try await waitUntil("the store has no observer") { schema.reviews.observerCount == 0 }
    }

    @Test func queriesStartedLikeSubscriptionsRunOnce() async throws {
        let operation = await schema.start(GraphQLRequest(query: "{ hero { name } }"))
        guard case .single(.executed(let result)) = operation else {
            Issue.record("expected one result, got \(operation)")
            return
        }
        #expect(result == GraphQLResult(data: ["hero": ["name": "R2-D2"]]))
    }

    @Test func badSubscriptionsAreRejected() async {
        let badVariable = await schema.start(GraphQLRequest(
            query: "subscription ($e: Episode) { reviewAdded(episode: $e) { id } }", variables: ["e": "EPISODE_IX"]))
        guard case .single(.rejected(let errors)) = badVariable else {
            Issue.record("an unknown episode must be rejected, got \(badVariable)")
            return
        }
        #expect(errors.count == 1)
        guard case .single(.rejected) = await schema.start(GraphQLRequest(query: "subscription { reviewAdded { rating } }")) else {
            Issue.record("an invalid selection must be rejected")
            return
        }
        #expect(schema.reviews.observerCount == 0)
    }

    @Test func executeRefusesSubscriptions() async {
        guard case .rejected(let errors) = await schema.execute(GraphQLRequest(query: "subscription { reviewAdded { id } }")) else {
            Issue.record("a subscription has no single result")
            return
        }
        #expect(errors.map(\.message) == [
            "Subscriptions are served over WebSocket (graphql-transport-ws or graphql-ws) at this path, not over plain HTTP.",
        ])
        #expect(schema.reviews.observerCount == 0)
    }
}

/// Waits until `condition` holds, checking every few milliseconds; fails after `timeout`.
func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting until \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
