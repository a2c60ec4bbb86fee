import GQLGateEventLoop

/// A command sent on a `RedisConnection` and not answered yet: completed once,
/// by its reply, its timeout or the loss of the connection, whichever comes
/// first (later news is ignored). Lives on the connection's loop only.
final class RedisPendingCommand {
    private var completion: ((Result<RedisReply, RedisError>) -> Void)?
    /// The command timeout's timer, cancelled by the reply.
    var timer: EventLoopTimerID?

    init(_ completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        self.completion = completion
    }

    /// Whether neither a reply nor a failure has completed it yet.
    var isWaiting: Bool { completion != nil }

    /// Completes the command, if nothing did before.
    func complete(_ result: Result<RedisReply, RedisError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}
