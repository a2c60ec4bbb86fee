@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline
import Logging

/// Whether the client's connections reach Redis, shared by every loop's
/// connection (and, with Cluster, every node's) so that an outage is logged
/// and stated once: a warning and `redisAvailabilityChanged(up: false)` when
/// a first connection fails, a notice and `up: true` when none is down any
/// more, however many connections notice it. Until a first connection is
/// ready, Redis counts as down.
final class RedisAvailability: Sendable {
    private struct State {
        /// The connections whose last news was a failure.
        var failing: Set<ObjectIdentifier> = []
        var everReady = false
        /// Whether this outage was logged.
        var warned = false

        var isUp: Bool { everReady && failing.isEmpty }
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

    /// `connection` failed or was lost.
    func failed(_ connection: ObjectIdentifier, _ reason: String) {
        let (wasUp, warn) = state.withLock { state in
            let wasUp = state.isUp
            state.failing.insert(connection)
            defer { state.warned = true }
            return (wasUp, !state.warned)
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

    /// `connection` is ready (logged in, database selected, answered PING).
    func ready(_ connection: ObjectIdentifier) {
        update { state in
            state.failing.remove(connection)
            state.everReady = true
        }
    }

    /// `connection` was closed for good (a node gone from a cluster's map, the client closed).
    func closed(_ connection: ObjectIdentifier) {
        update { state in _ = state.failing.remove(connection) }
    }

    private func update(_ change: (inout State) -> Void) {
        let (cameUp, warned) = state.withLock { state in
            let wasUp = state.isUp
            change(&state)
            let cameUp = !wasUp && state.isUp
            defer { if cameUp { state.warned = false } }
            return (cameUp, state.warned)
        }
        guard cameUp else { return }
        recorder?.record(.redisAvailabilityChanged(up: true))
        if warned { logger?.notice("redis reachable again", metadata: ["redis": "\(server)"]) }
    }

    /// Whether some connection is down (or none was ready yet).
    var isDown: Bool { state.withLock { !$0.isUp } }
}
