@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// Ends a span when a stream of results ends: the results of `channel` pass
/// through a channel of the same bound, on the producer's thread, and
/// `ended` runs once, when the producer finishes or the consumer leaves.
enum SpanLifetime {
    static func watching(_ channel: ResultChannel, ended: @escaping @Sendable () -> Void) -> ResultChannel {
        let outer = ResultChannel(bufferLimit: channel.bufferLimit)
        let once = Once(ended)
        outer.setOnTermination {
            channel.cancel()
            once.run()
        }
        channel.consume { event in
            switch event {
            case .result(let response):
                return outer.yield(response)
            case .finished(let error):
                outer.finish(throwing: error)
                once.run()
                return true
            }
        }
        return outer
    }

    private final class Once: Sendable {
        private let action: Lock<(@Sendable () -> Void)?>

        init(_ action: @escaping @Sendable () -> Void) {
            self.action = Lock(action)
        }

        func run() {
            action.withLock { action in
                defer { action = nil }
                return action
            }?()
        }
    }
}
