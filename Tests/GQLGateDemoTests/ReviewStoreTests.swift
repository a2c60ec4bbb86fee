@testable import GQLGateDemo
import Testing

@Suite struct ReviewStoreTests {
    @Test func keepsReviewsPerEpisodeInOrder() {
        let store = ReviewStore()
        store.addReview(of: .jedi, stars: 4, commentary: nil)
        store.addReview(of: .empire, stars: 5, commentary: "Best one.")
        store.addReview(of: .jedi, stars: 2, commentary: "Ewoks.")
        #expect(store.reviews(of: .jedi) == [
            Review(id: "1", episode: .jedi, stars: 4, commentary: nil),
            Review(id: "3", episode: .jedi, stars: 2, commentary: "Ewoks."),
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
            Review(id: "2", episode: .newHope, stars: 5, commentary: nil),
            Review(id: "3", episode: .empire, stars: 4, commentary: "Best one."),
        ])
        #expect(store.observerCount == 0)
        store.addReview(of: .jedi, stars: 3, commentary: "after everyone left")
    }

    @Test func observersOfAnEpisodeSeeOnlyItsReviews() async {
        let store = ReviewStore()
        let jedi = store.additions(of: .jedi)
        let all = store.additions()
        store.addReview(of: .empire, stars: 5, commentary: nil)
        store.addReview(of: .jedi, stars: 4, commentary: "Ewoks.")
        var jediReviews = jedi.makeAsyncIterator()
        var allReviews = all.makeAsyncIterator()
        #expect(await jediReviews.next()?.id == "2")
        #expect(await allReviews.next()?.id == "1")
        #expect(await allReviews.next()?.id == "2")
    }
}
