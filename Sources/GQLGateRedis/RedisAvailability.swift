import GQLGateCore
import Logging

/// Whether the client's connections reach Redis, shared by every loop's
/// connection so that an outage is logged once (a warning when the first
/// connection fails, a notice when one is ready again), however many loops
/// notice it.
final class RedisAvailability: Sendable {
    private let down = Lock(false)
    private let logger: Logger
    private let server: String

    init(logger: Logger, server: String) {
        self.logger = logger
        self.server = server
    }

    /// A connection failed or was lost.
    func failed(_ reason: String) {
        let first = down.withLock { down in
            defer { down = true }
            return !down
        }
        if first {
            logger.warning("redis unavailable; cached answers are bypassed until it is back",
                           metadata: ["redis": "\(server)", "reason": "\(reason)"])
        }
    }

    /// A connection is ready (logged in, database selected, answered PING).
    func ready() {
        let wasDown = down.withLock { down in
            defer { down = false }
            return down
        }
        if wasDown { logger.notice("redis reachable again", metadata: ["redis": "\(server)"]) }
    }

    /// Whether the last news was a failure.
    var isDown: Bool { down.withLock { $0 } }
}
