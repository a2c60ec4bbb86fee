@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
import GQLGatePipeline

/// Publishes a tiered cache's purges on Redis pub/sub for the other
/// replicas' memory tiers, and keeps the ones Redis did not take.
///
/// A `PUBLISH` that fails (Redis unavailable or slow for this replica, or
/// refusing the command) is not lost: the other replicas may still be
/// subscribed, and would serve what was purged until its TTL. The purge
/// waits and is published again, in order with any others that wait, after
/// a backoff (100 ms doubling to 2 s, jittered) until Redis takes it. At most
/// `limit` purges wait; past that they become one purge of everything.
final class InvalidationPublisher: Sendable {
    /// Purges kept while Redis does not take them.
    static let limit = 1_000

    private struct State {
        var waiting: [CacheInvalidationMessage] = []
        /// A task publishes `waiting`: new purges queue behind them.
        var retrying = false
    }

    private let client: RedisClient
    private let channel: [UInt8]
    private let recorder: (any FactRecorder)?
    private let backoff: Backoff
    private let state = Lock(State())

    init(client: RedisClient, channel: String, recorder: (any FactRecorder)?,
         backoff: Backoff = Backoff(initialDelay: .milliseconds(100), maximumDelay: .seconds(2), jitter: .equal)) {
        self.client = client
        self.channel = Array(channel.utf8)
        self.recorder = recorder
        self.backoff = backoff
    }

    /// Publishes `message` now, or after those still waiting.
    func publish(_ message: CacheInvalidationMessage) async {
        let queued = state.withLock { state in
            guard state.retrying else { return false }
            Self.enqueue(message, in: &state)
            return true
        }
        if queued { return }
        if await send(message) { return }
        let startsRetrying = state.withLock { state in
            Self.enqueue(message, in: &state)
            defer { state.retrying = true }
            return !state.retrying
        }
        guard startsRetrying else { return }
        // Held weakly while it waits: a cache dropped (a reload, a stop) ends its retries.
        Task { [weak self] in
            var failures = 0
            while let delay = self?.backoff.delay(forAttempt: failures) {
                try? await EventLoop.sleep(for: delay)
                guard let publisher = self, await !publisher.publishedWaiting() else { return }
                failures += 1
            }
        }
    }

    /// Purges waiting to be published (for tests).
    var waiting: Int { state.withLock { $0.waiting.count } }

    private static func enqueue(_ message: CacheInvalidationMessage, in state: inout State) {
        guard state.waiting.count >= limit else { return state.waiting.append(message) }
        // Too many to keep: one purge of everything stands for them all.
        state.waiting = [CacheInvalidationMessage(sender: message.sender, purge: CachePurge(entities: [CacheTags.everyAnswer]))]
    }

    /// Publishes the waiting purges in order: true once none waits, false
    /// when one failed (it and those after it wait for the next round).
    private func publishedWaiting() async -> Bool {
        while true {
            let next = state.withLock { state in
                if state.waiting.isEmpty { state.retrying = false }
                return state.waiting.first
            }
            guard let next else { return true }
            guard await send(next) else { return false }
            state.withLock { state in
                if state.waiting.first == next { state.waiting.removeFirst() }
            }
        }
    }

    /// One `PUBLISH`; a failure or an error reply is counted as the cache's failed command.
    private func send(_ message: CacheInvalidationMessage) async -> Bool {
        if case .integer? = try? await client.send([Array("PUBLISH".utf8), channel, message.encoded]) { return true }
        recorder?.record(.redisCommandFailed(.cache))
        return false
    }
}
