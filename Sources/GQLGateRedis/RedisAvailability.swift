@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline
import Logging

/// Whether the client's connections reach Redis, shared by every loop's
/// connection so that an outage is logged and stated once (a warning and
/// `redisAvailabilityChanged(up: false)` when the first connection fails, a
/// notice and `up: true` when one is ready again), however many loops notice it.
/// Until a first connection is ready, Redis counts as down.
final class RedisAvailability: Sendable {
    private struct State {
        var down = true
        /// Whether this outage was logged.
        var warned = false
    }

    private let state = Lock(State())
    private let logger: Logger?
    private let recorder: (any FactRecorder)?
    private let server: String
    private let fallback: String

    /// - Parameters:
    ///   - logger: nil for connections that are not the store's own (a question to a sentinel).
    ///   - fallback: what the stores do meanwhile, for the outage's warning.
    init(logger: Logger?, recorder: (any FactRecorder)?, server: String, fallback: String = "cached answers are bypassed") {
        self.logger = logger
        self.recorder = recorder
        self.server = server
        self.fallback = fallback
        recorder?.record(.redisAvailabilityChanged(up: false))
    }

    /// A connection failed or was lost.
    func failed(_ reason: String) {
        let (wasUp, warn) = state.withLock { state in
            defer { state = State(down: true, warned: true) }
            return (!state.down, !state.warned)
        }
        if wasUp { recorder?.record(.redisAvailabilityChanged(up: false)) }
        if warn {
            logger?.warning("redis unavailable; \(fallback) until it is back",
                            metadata: ["redis": "\(server)", "reason": "\(reason)"])
        }
    }

    /// A connection is being made again.
    func reconnecting() {
        recorder?.record(.redisReconnecting)
    }

    /// A connection is ready (logged in, database selected, answered PING).
    func ready() {
        let (wasDown, warned) = state.withLock { state in
            defer { state = State(down: false, warned: false) }
            return (state.down, state.warned)
        }
        guard wasDown else { return }
        recorder?.record(.redisAvailabilityChanged(up: true))
        if warned { logger?.notice("redis reachable again", metadata: ["redis": "\(server)"]) }
    }

    /// Whether the last news was a failure (or there was none yet).
    var isDown: Bool { state.withLock { $0.down } }
}
