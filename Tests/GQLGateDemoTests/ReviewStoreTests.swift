import GQLGateDemo
import Testing

@Suite struct ReviewStoreTests {
    @Test func keepsReviewsPerEpisodeInOrder() {
        let store = ReviewStore()
        store.addReview(of: .jedi, stars: 4, commentary: nil)
        store.addReview(of: .empire, stars: 5, commentary: "Best one.")
        store.addReview(of: .jedi, stars: 2, commentary: "Ewoks.")
        #expect(store.reviews(of: .jedi) == [
            Review(episode: .jedi, stars: 4, commentary: nil),
            Review(episode: .jedi, stars: 2, commentary: "Ewoks."),
        ])
        #expect(store.reviews(of: .empire).map(\.stars) == [5])
        #expect(store.reviews(of: .newHope).isEmpty)
    }

    @Test func observersSeeNewReviewsUntilTheyStop() async {
        let store = ReviewStore()
        store.addReview(of: .jedi, stars: 1, commentary: "before anyone listened")
        var seen: [Review?] = []
        do {
            let additions = store.additions()
            #expect(store.observerCount == 1)
            store.addReview(of: .newHope, stars: 5, commentary: nil)
            store.addReview(of: .empire, stars: 4, commentary: "Best one.")
            var iterator = additions.makeAsyncIterator()
            seen.append(await iterator.next())
            seen.append(await iterator.next())
        }
        #expect(seen == [
            Review(episode: .newHope, stars: 5, commentary: nil),
            Review(episode: .empire, stars: 4, commentary: "Best one."),
        ])
        #expect(store.observerCount == 0)
        store.addReview(of: .jedi, stars: 3, commentary: "after everyone left")
    }
}
