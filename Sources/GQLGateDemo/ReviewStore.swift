import Synchronization

/// The reviews submitted so far, kept in memory and shared by all requests.
/// Anyone may also follow new reviews as they arrive (`additions()`), which is
/// what a `reviewAdded` subscription needs.
public final class ReviewStore: Sendable {
    private struct State {
        var reviews: [Episode: [Review]] = [:]
        var observers: [Int: AsyncStream<Review>.Continuation] = [:]
        var nextObserverID = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// The reviews of `episode`, oldest first.
    public func reviews(of episode: Episode) -> [Review] {
        state.withLock { $0.reviews[episode] ?? [] }
    }

    /// Records a review of `episode`, hands it to every observer and returns it.
    @discardableResult
    public func addReview(of episode: Episode, stars: Int, commentary: String?) -> Review {
        let review = Review(episode: episode, stars: stars, commentary: commentary)
        let observers = state.withLock { state in
            state.reviews[episode, default: []].append(review)
            return Array(state.observers.values)
        }
        for observer in observers {
            observer.yield(review)
        }
        return review
    }

    /// The reviews added from now on, until the consumer stops iterating.
    /// A slow consumer keeps the newest `bufferLimit` reviews and drops older ones.
    public func additions(bufferLimit: Int = 64) -> AsyncStream<Review> {
        let (stream, continuation) = AsyncStream.makeStream(of: Review.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = state.withLock { state in
            defer { state.nextObserverID += 1 }
            state.observers[state.nextObserverID] = continuation
            return state.nextObserverID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many consumers are following `additions()`.
    public var observerCount: Int {
        state.withLock { $0.observers.count }
    }
}
