import GQLGateEventLoop

/// A subscription made by `RedisClient.subscribe`: its connection is
/// closed when this value goes.
package final class RedisSubscription: Sendable {
    private let connection: LoopBound<RedisConnection>

    init(_ connection: LoopBound<RedisConnection>) {
        self.connection = connection
    }

    deinit {
        let connection = connection
        connection.loop.execute { connection.value.close() }
    }
}
