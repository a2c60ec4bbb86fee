@_spi(GQLGateInternals) import GQLGateCore

/// The reviews submitted so far, kept in memory and shared by all requests.
/// Anyone may also follow new reviews as they arrive (`additions(of:)`), which
/// is what the `reviewAdded` subscription does.
package final class ReviewStore: Sendable {
    private struct Observer {
        let episode: Episode?
        let continuation: AsyncStream<Review>.Continuation
    }

    private struct State {
        var reviews: [Episode: [Review]] = [:]
        var reviewCount = 0
        var observers: [Int: Observer] = [:]
        var nextObserverID = 0
    }

    private let state = Lock(State())

    package init() {}

    /// The reviews of `episode`, oldest first.
    package func reviews(of episode: Episode) -> [Review] {
        state.withLock { $0.reviews[episode] ?? [] }
    }

    /// Records a review of `episode` with the next identifier ("1", "2", ...),
    /// hands it to every observer following that episode and returns it.
    @discardableResult
    package func addReview(of episode: Episode, stars: Int, commentary: String?) -> Review {
        let (review, observers) = state.withLock { state in
            state.reviewCount += 1
            let review = Review(id: ReviewID(String(state.reviewCount)), episode: episode, stars: stars, commentary: commentary)
            state.reviews[episode, default: []].append(review)
            return (review, state.observers.values.filter { $0.episode == nil || $0.episode == episode })
        }
        for observer in observers {
            observer.continuation.yield(review)
        }
        return review
    }

    /// The reviews of `episode` (of every episode when nil) added from now on,
    /// until the consumer stops iterating or drops the stream. A slow consumer
    /// keeps the newest `bufferLimit` reviews and drops older ones.
    package func additions(of episode: Episode? = nil, bufferLimit: Int = 64) -> AsyncStream<Review> {
        let (stream, continuation) = AsyncStream.makeStream(of: Review.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = state.withLock { state in
            defer { state.nextObserverID += 1 }
            state.observers[state.nextObserverID] = Observer(episode: episode, continuation: continuation)
            return state.nextObserverID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many consumers are following `additions(of:)`.
    var observerCount: Int {
        state.withLock { $0.observers.count }
    }
}
