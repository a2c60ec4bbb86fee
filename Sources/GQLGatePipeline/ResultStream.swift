/// The results of one operation, in order: one for a query or mutation, many
/// for a subscription. Exchanges may pass it up unchanged or transform it.
public struct ResultStream: AsyncSequence, Sendable {
    public typealias Element = GraphQLResponse

    @usableFromInline
    enum Storage: Sendable {
        case single(GraphQLResponse)
        case deferred(@Sendable () async throws -> GraphQLResponse)
        case stream(Results)
        case channel(ResultChannel)
    }

    /// A stream held by reference: `AsyncThrowingStream`'s layout is not
    /// known outside its module, so holding it inline would have every copy
    /// of `Storage`, a single result's too, go through type metadata.
    @usableFromInline
    final class Results: Sendable {
        let stream: AsyncThrowingStream<GraphQLResponse, any Error>

        init(_ stream: AsyncThrowingStream<GraphQLResponse, any Error>) {
            self.stream = stream
        }
    }

    @usableFromInline let storage: Storage

    /// A stream of exactly one result.
    public static func single(_ response: GraphQLResponse) -> ResultStream {
        ResultStream(storage: .single(response))
    }

    /// A stream of many results.
    public init(_ stream: AsyncThrowingStream<GraphQLResponse, any Error>) {
        storage = .stream(Results(stream))
    }

    /// A stream of many results pushed through `channel`.
    package init(_ channel: ResultChannel) {
        storage = .channel(channel)
    }

    /// The channel the results come through, when they come through one: a
    /// consumer may take them from it with a handler instead of iterating.
    /// Whoever takes the channel takes the whole stream; do not also iterate.
    package var channel: ResultChannel? {
        if case .channel(let channel) = storage { channel } else { nil }
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The first result (the only one, for queries and mutations).
    /// Inlinable: a ready result, the usual case, is taken in the caller's
    /// own frame, with no async call at all.
    @inlinable
    public func first() async throws -> GraphQLResponse? {
        if case .single(let response) = storage { return response }
        return try await firstProduced()
    }

    @usableFromInline
    func firstProduced() async throws -> GraphQLResponse? {
        switch storage {
        case .single(let response): return response
        case .deferred(let produce): return try await produce()
        case .stream(let results):
            for try await response in results.stream { return response }
            return nil
        case .channel(let channel):
            for try await response in Self.bridge(channel) { return response }
            return nil
        }
    }

    /// `channel`'s results as an async sequence that buffers at most its
    /// `bufferLimit` (past it the producer is told the consumer is too slow);
    /// ending the iteration cancels the channel.
    private static func bridge(_ channel: ResultChannel) -> AsyncThrowingStream<GraphQLResponse, any Error> {
        let (stream, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream(
            bufferingPolicy: .bufferingOldest(channel.bufferLimit))
        continuation.onTermination = { _ in channel.cancel() }
        channel.consume { event in
            switch event {
            case .result(let response):
                if case .dropped = continuation.yield(response) { return false }
                return true
            case .finished(let error):
                continuation.finish(throwing: error)
                return true
            }
        }
        return stream
    }

    /// Applies `transform` to every result as it passes. Where the result's
    /// type is not implied, name it (`let mapped: ResultStream = …`):
    /// `AsyncSequence`'s own `map` is the other candidate.
    public func map(_ transform: @escaping @Sendable (GraphQLResponse) async throws -> GraphQLResponse) -> ResultStream {
        switch storage {
        case .single(let response):
            return ResultStream(storage: .deferred { try await transform(response) })
        case .deferred(let produce):
            return ResultStream(storage: .deferred { try await transform(try await produce()) })
        case .channel(let channel):
            return ResultStream(Self.bridge(channel)).map(transform)
        case .stream(let results):
            let (mapped, continuation) = AsyncThrowingStream<GraphQLResponse, any Error>.makeStream()
            let task = Task {
                do {
                    for try await response in results.stream { continuation.yield(try await transform(response)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
            return ResultStream(mapped)
        }
    }

    public func makeAsyncIterator() -> Iterator {
        switch storage {
        case .single(let response): Iterator(state: .single(response))
        case .deferred(let produce): Iterator(state: .deferred(produce))
        case .stream(let results): Iterator(state: .stream(results.stream.makeAsyncIterator()))
        case .channel(let channel): Iterator(state: .stream(Self.bridge(channel).makeAsyncIterator()))
        }
    }

    /// Iterates the results.
    public struct Iterator: AsyncIteratorProtocol {
        enum State {
            case single(GraphQLResponse)
            case deferred(@Sendable () async throws -> GraphQLResponse)
            case stream(AsyncThrowingStream<GraphQLResponse, any Error>.AsyncIterator)
            case finished
        }

        var state: State

        public mutating func next() async throws -> GraphQLResponse? {
            switch state {
            case .single(let response):
                state = .finished
                return response
            case .deferred(let produce):
                state = .finished
                return try await produce()
            case .stream(var iterator):
                let response = try await iterator.next(isolation: #isolation)
                state = response == nil ? .finished : .stream(iterator)
                return response
            case .finished:
                return nil
            }
        }
    }
}
